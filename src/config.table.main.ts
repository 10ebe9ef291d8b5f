import './node.supported';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSettingsTables } from './config.table';

// `npm run config:table`: regenerates the settings tables of docs/configuration.md from src/config.ts.
const target = join(__dirname, '..', 'docs', 'configuration.md');
writeFileSync(target, withSettingsTables(readFileSync(target, 'utf8')));
console.log(`wrote ${target}`);
