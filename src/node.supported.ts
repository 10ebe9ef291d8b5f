import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies } from 'semver';

/**
 * Imported first by every entry point, before anything native loads: on a Node.js line outside
 * package.json's `engines` the embedded database's driver can crash the process in native code
 * (better-sqlite3 13 segfaults on Node 20), so a start there says what is supported and exits.
 */
export function unsupportedNode(version: string, engines: string): string | undefined {
  if (satisfies(version, engines)) return undefined;
  return `payout-gateway runs on Node.js ${engines} (the LTS lines 22 and 24); this is Node.js ${version}. See the README's first lines.`;
}

const engines = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;
const refusal = unsupportedNode(process.versions.node, engines);
if (refusal) {
  console.error(refusal);
  process.exit(1);
}
