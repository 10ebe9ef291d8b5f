/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // jose 6 ships only ES modules; Node 22 and 24 can require() them, Jest's module loader cannot.
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
  // Three workers on this 2-core machine: the suites mostly wait on sockets, timers and child processes, so a third
  // fills the cores' idle time (the whole suite in 204 s against 261 s with two, back to back), and each is safe
  // beside the others.
  maxWorkers: 3,
};
