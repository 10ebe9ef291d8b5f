import { Client, type Pool } from 'pg';
import { openPostgres } from '../../src/database/postgres.open';
import { compile } from '../../src/database/sql.dialect';
import { auditEvent } from '../../src/disbursements/audit.entry';
import { accountKey, Beneficiary } from '../../src/disbursements/beneficiary.model';
import { BeneficiaryWrite } from '../../src/disbursements/disbursement.ports';
import { insertRow } from '../../src/store/beneficiary.statements';
import { postgresStore } from '../../src/store/postgres.engine';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { describePostgres, FreshDatabase, freshDatabase } from '../support/postgres';
import { until } from './store.fixtures';
import { PayoutStore } from '../../src/store/payout.store';

const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
let serial = 0;
function beneficiary(accountNumber: string): Beneficiary {
  serial += 1;
  return {
    merchantId: 'merchant-1',
    id: `ben_${serial}`,
    name: `Supplier ${serial}`,
    details: { channel: 'MOBILE_MONEY', accountNumber },
    status: 'ACTIVE',
    createdBy: 'alice',
    createdAt: at,
    requesterId: 'token:alice',
    changedAt: at,
    payableFrom: at,
    updatedAt: at,
  };
}
const written = (b: Beneficiary): BeneficiaryWrite => ({
  beneficiary: b,
  audit: [auditEvent('BENEFICIARY_CHANGED', at, { actor: 'alice', detail: `beneficiary ${b.id}` })],
});

/**
 * A write that loses the account key to another replica's write committing while it runs: the other
 * writer's transaction is held open here, so the store's one statement waits on the unique index,
 * and answers once it commits.
 */
describePostgres('PostgreSQL beneficiary writes racing another replica', () => {
  let database: FreshDatabase;
  let pool: Pool;
  let store: PayoutStore;
  let other: Client;
  beforeEach(async () => {
    database = await freshDatabase();
    pool = await openPostgres(database.url);
    store = postgresStore({ pool, entryKey: TEST_ENTRY_KEY });
    other = new Client({ connectionString: database.url });
    await other.connect();
  });
  afterEach(async () => {
    await other.end();
    await pool.end();
    await database.drop();
  });
  const waiting = async () => {
    const { rows } = await pool.query<{ count: string }>('SELECT count(*) FROM pg_locks WHERE NOT granted');
    return rows[0].count !== '0';
  };
  const chain = async () => (await store.auditPage('merchant-1', { limit: 10, filter: {} })).entries;

  it('an insert of a key another inserts meanwhile answers with that one, storing nothing', async () => {
    const theirs = beneficiary('260970000001');
    await other.query('BEGIN');
    const { text, values } = compile(insertRow(theirs), 'postgres');
    await other.query(text, values);
    const answer = store.insertBeneficiary(written(beneficiary('260970000001')));
    await until(waiting);
    await other.query('COMMIT');
    expect((await answer).duplicate).toEqual(theirs);
    expect(await chain()).toEqual([]);
  });

  it('a change onto a key another takes meanwhile answers with that one, storing nothing', async () => {
    const [theirs, mine] = [beneficiary('260970000002'), beneficiary('260970000003')];
    for (const b of [theirs, mine]) await store.insertBeneficiary({ beneficiary: b, audit: [] });
    const moved = { ...theirs, details: { channel: 'MOBILE_MONEY' as const, accountNumber: '260970000009' } };
    await other.query('BEGIN');
    await other.query(`UPDATE beneficiaries SET account_key = $1, record = $2 WHERE id = $3`, [
      accountKey(moved.details),
      JSON.stringify(moved),
      theirs.id,
    ]);
    const answer = store.updateBeneficiary('merchant-1', mine.id, (current) =>
      written({ ...current, details: moved.details }),
    );
    await until(waiting);
    await other.query('COMMIT');
    expect(await answer).toEqual({ duplicate: moved });
    expect(await store.beneficiary('merchant-1', mine.id)).toEqual(mine);
    expect(await chain()).toEqual([]);
  });
});
