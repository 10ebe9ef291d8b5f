import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../../src/config.settings';
import { settingsTables, withSettingsTables } from '../../src/config.table';

const page = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('holds exactly the settings tables the schema generates (run `npm run config:table` after changing a setting)', () => {
    expect(withSettingsTables(page)).toBe(page);
  });

  it('lists every setting of the schema, each with its meaning', () => {
    const names = Object.values(SETTINGS).flatMap((settings) => Object.keys(settings));
    for (const name of names) expect(settingsTables()).toContain(`| ${name} |`);
    expect(names.length).toBeGreaterThan(40);
  });
});
