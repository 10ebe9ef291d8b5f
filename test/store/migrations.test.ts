import { SchemaTooNewError } from '../../src/database/schema.migrate';
import { databasePerTest, describeEngines } from '../support/engines';
import { FROM_THE_FUTURE, KNOWN } from './migrations.fixtures';

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
