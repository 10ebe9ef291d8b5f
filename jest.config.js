const swc = (syntax) => [
  '@swc/jest',
  {
    jsc: {
      parser: syntax === 'tsx' ? { syntax: 'typescript', tsx: true } : { syntax: 'typescript', decorators: true },
      transform:
        syntax === 'tsx' ? { react: { runtime: 'automatic' } } : { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

/** The gateway's tests: real servers, sockets, databases and browsers, in Node. */
const gateway = {
  displayName: 'gateway',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // jose 6 ships only ES modules; Node 22 and 24 can require() them, Jest's module loader cannot.
    '/node_modules/jose/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
    '^.+\\.ts$': swc('ts'),
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  setupFiles: ['<rootDir>/test/support/setup.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/leaks.ts'],
};

/**
 * The console's component tests: its screens in jsdom, against a fake GraphQL link. Packages load
 * as CommonJS (jsdom's default `browser` condition would pick rxjs's ES modules).
 */
const console = {
  displayName: 'console',
  testEnvironment: 'jsdom',
  testEnvironmentOptions: { customExportConditions: ['require', 'default'] },
  roots: ['<rootDir>/console/test'],
  testMatch: ['**/*.test.tsx'],
  transform: { '^.+\\.tsx?$': swc('tsx') },
  setupFilesAfterEnv: ['<rootDir>/console/test/support/setup.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [gateway, console],
  // Builds the gateway and the console once, for the tests that run them as a process or in Chromium.
  globalSetup: '<rootDir>/test/support/build.ts',
  testTimeout: 30000,
  // Three workers on this 2-core machine: the suites mostly wait on sockets, timers and child processes, so a third
  // fills the cores' idle time (the whole suite in 204 s against 261 s with two, back to back), and each is safe
  // beside the others.
  maxWorkers: 3,
};
