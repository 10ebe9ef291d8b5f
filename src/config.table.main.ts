import './node.supported';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSecretsTable, withSettingsTables } from './config.table';

// `npm run config:table`: regenerates the settings tables of docs/configuration.md from src/config.settings.ts,
// and the secrets table of docs/security.md from src/config.secrets.ts.
for (const [page, regenerate] of [
  ['configuration.md', withSettingsTables],
  ['security.md', withSecretsTable],
] as const) {
  const target = join(__dirname, '..', 'docs', page);
  writeFileSync(target, regenerate(readFileSync(target, 'utf8')));
  console.log(`wrote ${target}`);
}
