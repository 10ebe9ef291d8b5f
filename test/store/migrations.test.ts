import { SchemaTooNewError } from '../../src/database/schema.migrate';
import { Migration } from '../../src/database/schema.engine';
import { MIGRATIONS } from '../../src/database/schema.migrations';
import { databasePerTest, describeEngines } from '../support/engines';
import { FROM_THE_FUTURE, KNOWN } from './migrations.fixtures';
import { CATALOGUES } from './schema.catalogue';

describeEngines('schema migrations', (engine) => {
  const db = databasePerTest(engine);

  it('applies nothing to a database already migrated', async () => {
    expect(await db().migrate()).toEqual([]);
    expect(await db().migrate()).toEqual([]);
  });

  it('refuses a database whose schema is newer than this build knows', async () => {
    await db().exec(FROM_THE_FUTURE);
    const refusal = db().migrate();
    await expect(refusal).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(refusal).rejects.toThrow(`version ${KNOWN + 1}, newer than this gateway knows (${KNOWN})`);
  });
});

describeEngines('the schema migrations build', (engine) => {
  const catalogue = CATALOGUES[engine.name];

  it('is the declared one: its tables, columns, primary keys, indexes, triggers and functions', async () => {
    expect(await catalogue.built()).toEqual(catalogue.declared);
  });

  it('differs from the declared one once a migration drops an index or adds a column', async () => {
    const drift: Migration = {
      version: KNOWN + 1,
      name: 'undeclared drift',
      shared: () => 'DROP INDEX payouts_due; ALTER TABLE payouts ADD COLUMN undeclared TEXT;',
    };
    const built = await catalogue.built([...MIGRATIONS, drift]);
    const payouts = built.tables.find((t) => t.name === 'payouts');
    expect(payouts?.columns).toContain('undeclared');
    expect(payouts?.indexes).not.toContain('payouts_due');
    expect(built).not.toEqual(catalogue.declared);
  });
});
