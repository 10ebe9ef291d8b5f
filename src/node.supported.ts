import { engines, unsupportedNode } from '../scripts/node-supported.cjs';

/**
 * Imported first by every entry point, before anything native loads: on a Node.js line outside
 * package.json's `engines` the embedded database's driver can crash the process in native code
 * (better-sqlite3 13 segfaults on Node 20), so a start there says what is supported and exits. The
 * rule and its sentence are scripts/node-supported.cjs's, which the npm scripts run before anything.
 */
const refusal = unsupportedNode(process.versions.node, engines);
if (refusal) {
  console.error(refusal);
  process.exit(1);
}
