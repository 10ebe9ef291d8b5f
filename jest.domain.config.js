// The domain's fast lane (`npm run test:domain`): src/disbursements/ against its ports, in memory,
// with no build of dist/ and no server, so it runs in seconds.
const { projects, ...base } = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  ...projects[0],
  roots: ['<rootDir>/test/disbursements'],
  globalSetup: undefined,
  setupFilesAfterEnv: [],
};
