// The Node.js lines the gateway runs on, and the one sentence that refuses any other. Plain CommonJS that any Node
// runs: `npm start`, `npm test`, `npm run test:domain` and `npm run bench` run this file first, and every entry point
// imports it through src/node.supported.ts before anything native loads.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { satisfies } = require('semver');

/** package.json's `engines.node`. */
const engines = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).engines.node;

/** The refusal of Node.js `version`, or undefined when `range` admits it. */
function unsupportedNode(version, range) {
  if (satisfies(version, range)) return undefined;
  return `payout-gateway runs on Node.js ${range} (the LTS lines 22 and 24); this is Node.js ${version}. See the README's first lines.`;
}

module.exports = { engines, unsupportedNode };

if (require.main === module) {
  const refusal = unsupportedNode(process.versions.node, engines);
  if (refusal) {
    console.error(refusal);
    process.exit(1);
  }
}
