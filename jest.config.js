/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  globalSetup: '<rootDir>/test/support/build.ts',
  setupFiles: ['<rootDir>/test/support/setup.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/leaks.ts'],
  testTimeout: 30000,
};
