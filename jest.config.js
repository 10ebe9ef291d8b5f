/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // jose 6 ships only ES modules; Node 20.19 can require() them, Jest's module loader cannot.
    '/node_modules/jose/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
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
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  globalSetup: '<rootDir>/test/support/build.ts',
  setupFiles: ['<rootDir>/test/support/setup.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/leaks.ts'],
  testTimeout: 30000,
  // Two workers on this 2-core machine: the suites mostly wait on sockets and timers, so two run in about half the
  // time of jest's default of one (127 s against 228 s for the whole suite), and each is safe beside another.
  maxWorkers: 2,
};
