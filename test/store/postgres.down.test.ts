import type { Pool } from 'pg';
import { openPostgres } from '../../src/database/postgres.open';
import { StoreUnavailableError } from '../../src/disbursements/disbursement.ports';
import { postgresStore } from '../../src/store/postgres.engine';
import { describeOwnPostgres, OwnPostgres, startOwnPostgres } from '../support/postgres';
import { bump, record, until } from './store.fixtures';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { PayoutStore } from '../../src/store/payout.store';

/** Far less than a query's 10 s timeout: an outage answers at once, it does not wait on the server. */
const PROMPTLY_MS = 5000;

/** How `call` settled: its error, or 'resolved'; 'hung' when it took longer than PROMPTLY_MS. */
async function settled(call: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise((resolve) => (timer = setTimeout(() => resolve('hung'), PROMPTLY_MS)));
  try {
    return await Promise.race([
      call.then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describeOwnPostgres('PayoutStore while its server is down', () => {
  let server: OwnPostgres;
  let pool: Pool;
  let store: PayoutStore;
  const outages: unknown[] = [];

  beforeAll(async () => {
    server = await startOwnPostgres();
    pool = await openPostgres(server.url);
    store = postgresStore({ pool, entryKey: TEST_ENTRY_KEY, onOutage: (error) => outages.push(error) });
  }, 60_000);
  afterAll(async () => {
    await pool.end();
    await server.destroy();
  });

  it('rejects every call at once with StoreUnavailableError, and answers again on the same instance once it is back', async () => {
    const r = record({ due: { kind: 'RECHECK', at: '2026-01-01T00:00:00.000Z' } });
    const held = record({ reservation: { day: '2026-01-01', currency: 'ZMW', actorId: 'alice', minor: 100 } });
    await store.insertIfAbsent(r);
    expect(await store.healthy()).toBe(true);

    await server.stop('immediate');
    const calls: Record<string, () => Promise<unknown>> = {
      get: () => store.get(r.merchantId, r.referenceId),
      getMany: () => store.getMany(r.merchantId, [r.referenceId]),
      insertIfAbsent: () => store.insertIfAbsent(record()),
      insertReserving: () => store.insertReserving(held, { dailyMinor: 1000 }),
      reserved: () => store.reserved(r.merchantId, '2026-01-01', 'ZMW', 'alice'),
      update: () => store.update(r.merchantId, r.referenceId, bump()),
      remove: () => store.remove(r.merchantId, r.referenceId, () => true),
      due: () => store.due(new Date('2026-01-02T00:00:00.000Z'), 10),
      history: () => store.history(r.merchantId, { limit: 10, filter: {} }),
      changesAfter: () => store.changesAfter(r.merchantId, '0', 10),
      hasChange: () => store.hasChange(r.merchantId, '1'),
      latestChange: () => store.latestChange(r.merchantId),
    };
    for (const [name, call] of Object.entries(calls)) {
      const outcome = await settled(call());
      expect([name, outcome]).toEqual([name, expect.any(StoreUnavailableError)]);
    }
    expect(await store.healthy()).toBe(false);
    expect(outages.length).toBeGreaterThanOrEqual(Object.keys(calls).length);

    await server.start();
    await until(() => store.healthy());
    expect(await store.get(r.merchantId, r.referenceId)).toEqual(r);
    expect(await store.update(r.merchantId, r.referenceId, bump({ status: 'SUCCESSFUL' }))).toMatchObject({
      status: 'SUCCESSFUL',
      version: 2,
    });
    expect(await store.insertReserving(held, { dailyMinor: 1000 })).toEqual({});
    expect(await store.due(new Date('2026-01-02T00:00:00.000Z'), 10)).toEqual([
      { ...r, status: 'SUCCESSFUL', version: 2 },
    ]);
  });
});
