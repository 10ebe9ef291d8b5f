import { Pool } from 'pg';
import { openPostgres } from '../../src/database/postgres.open';
import { PostgresEvents } from '../../src/events/postgres.events';
import { postgresStore } from '../../src/store/postgres.engine';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { POSTGRES } from '../support/postgres.engine';
import { freshDatabase, FreshDatabase, withClient } from '../support/postgres';
import { bump, shownRecord, until, watching } from './store.fixtures';
import { PayoutStore } from '../../src/store/payout.store';

// PostgreSQL's own mechanism behind the events contract: notifications of bounded size, and a LISTEN session
// that can be killed under it.
POSTGRES.describe('PostgresEvents over LISTEN/NOTIFY', () => {
  let database: FreshDatabase;
  let pools: Pool[];
  let events: PostgresEvents;
  let errors: Error[];
  /** A store as another replica has it: a pool of its own. */
  let store: PayoutStore;

  beforeEach(async () => {
    database = await freshDatabase();
    pools = [await openPostgres(database.url), await openPostgres(database.url)];
    errors = [];
    events = new PostgresEvents({ url: database.url, pool: pools[0], onError: (e) => errors.push(e) });
    store = postgresStore({ pool: pools[1], entryKey: TEST_ENTRY_KEY });
  });
  afterEach(async () => {
    await events.close();
    await Promise.all(pools.map((pool) => pool.end()));
    await database.drop();
  });

  it('hears a record too long for a notification whole, read from the log', async () => {
    const history = Array.from({ length: 120 }, (_, i) => ({
      status: 'PENDING' as const,
      source: 'CALLBACK' as const,
      message: `callback ${i} said the payout is still on its way`,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }));
    const r = shownRecord({ history });
    expect(Buffer.byteLength(JSON.stringify(r))).toBeGreaterThan(7000);
    const watcher = watching(events.watch(r.merchantId, r.referenceId));
    await events.listening();
    await store.insertIfAbsent(r);
    const short = (await store.update(r.merchantId, r.referenceId, (c) =>
      bump({ history: c.history.slice(0, 1) })(c),
    ))!;
    expect(await watcher.take(2)).toEqual([r, short]);
    await watcher.stop();
  });

  it('listens again by itself after its connection is killed, and its watchers hear later changes', async () => {
    const r = shownRecord();
    const watcher = watching(events.watchMerchant(r.merchantId));
    await events.merchantListening();
    await store.insertIfAbsent(r);
    expect(await watcher.first).toEqual(r);

    const killed = await withClient(database.url, async (client) => {
      const { rows } = await client.query<{ gone: boolean }>(
        `SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`,
      );
      return rows;
    });
    expect(killed).toEqual([{ gone: true }]);
    await until(async () => !(await events.healthy()));
    expect(errors.length).toBeGreaterThan(0);

    await events.merchantListening();
    expect(await events.healthy()).toBe(true);
    const later = (await store.update(r.merchantId, r.referenceId, bump({ status: 'SUCCESSFUL' })))!;
    expect(await watcher.next()).toEqual(later);
    await watcher.stop();
  });
});
