import { START_POSITION } from '../../src/disbursements/disbursement.ports';
import { MemoryStore } from '../../src/store/memory.store';
import { RedisStore } from '../../src/store/redis.store';
import { describeRedis, requireRedisUrl, uniquePrefix, withRedis } from '../support/redis';
import { record, StoreUnderTest } from './store.contract';

type Make = (eventRetentionSeconds?: number) => Promise<StoreUnderTest & { prefix?: string }>;

/** The change log behind the store's interface: what `disbursementEvents` reads, the same for every store. */
function changeLogContract(make: Make): void {
  let made: Awaited<ReturnType<Make>>;
  afterEach(async () => {
    await made.cleanup();
  });

  const bump = (status: 'SUCCESSFUL' | 'FAILED') => (current: ReturnType<typeof record>) => ({
    ...current,
    status,
    version: current.version + 1,
  });

  it('logs each change whose version moved, in the order applied, and nothing else', async () => {
    made = await make();
    const { store } = made;
    const [a, b] = [record({ merchantId: 'm1' }), record({ merchantId: 'm1' })];
    await store.insertIfAbsent(a);
    await store.insertIfAbsent(b);
    expect(await store.latestChange('m1')).toBe(START_POSITION);
    await store.update('m1', b.referenceId, bump('FAILED'));
    // Bookkeeping: the version stays, nothing is logged.
    await store.update('m1', a.referenceId, (current) => ({ ...current, checkAttempts: current.checkAttempts + 1 }));
    await store.update('m1', a.referenceId, bump('SUCCESSFUL'));
    const changes = await store.changesAfter('m1', START_POSITION, 10);
    expect(changes.map((c) => [c.record.referenceId, c.record.status])).toEqual([
      [b.referenceId, 'FAILED'],
      [a.referenceId, 'SUCCESSFUL'],
    ]);
    expect(await store.latestChange('m1')).toBe(changes[1].position);
    expect(await store.changesAfter('m1', changes[0].position, 10)).toEqual([changes[1]]);
    expect(await store.changesAfter('m1', changes[0].position, 0)).toEqual([]);
    expect(await store.hasChange('m1', changes[0].position)).toBe(true);
    expect(await store.hasChange('m1', `${changes[1].position.split('-')[0]}-999`)).toBe(false);
  });

  it("keeps each merchant's changes apart", async () => {
    made = await make();
    const { store } = made;
    const mine = record({ merchantId: 'm1' });
    await store.insertIfAbsent(mine);
    await store.update('m1', mine.referenceId, bump('SUCCESSFUL'));
    const [change] = await store.changesAfter('m1', START_POSITION, 10);
    expect(await store.changesAfter('m2', START_POSITION, 10)).toEqual([]);
    expect(await store.hasChange('m2', change.position)).toBe(false);
    expect(await store.latestChange('m2')).toBe(START_POSITION);
  });

  it('forgets changes older than the retention', async () => {
    made = await make(1);
    const { store } = made;
    const r = record({ merchantId: 'm1' });
    await store.insertIfAbsent(r);
    await store.update('m1', r.referenceId, bump('SUCCESSFUL'));
    const [change] = await store.changesAfter('m1', START_POSITION, 10);
    expect(await store.hasChange('m1', change.position)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await store.hasChange('m1', change.position)).toBe(false);
    expect(await store.changesAfter('m1', START_POSITION, 10)).toEqual([]);
  });
}

describe('MemoryStore change log', () => {
  changeLogContract(async (eventRetentionSeconds = 3600) => ({
    store: new MemoryStore({ eventRetentionMs: eventRetentionSeconds * 1000 }),
    cleanup: async () => undefined,
  }));

  it('keeps at most maxChangesPerMerchant, the oldest going first', async () => {
    const store = new MemoryStore({ maxChangesPerMerchant: 3 });
    const r = record({ merchantId: 'm1' });
    await store.insertIfAbsent(r);
    for (let i = 0; i < 5; i += 1) await store.update('m1', r.referenceId, (c) => ({ ...c, version: c.version + 1 }));
    const kept = await store.changesAfter('m1', START_POSITION, 10);
    expect(kept.map((c) => c.record.version)).toEqual([4, 5, 6]);
  });
});

describeRedis('RedisStore change log', () => {
  const make: Make = async (eventRetentionSeconds = 3600) => {
    const { prefix, cleanup } = uniquePrefix();
    const store = new RedisStore({ redis: requireRedisUrl(), prefix, eventRetentionSeconds });
    return {
      store,
      prefix,
      async cleanup() {
        await store.close();
        await cleanup();
      },
    };
  };
  changeLogContract(make);

  it("is a Redis Stream under the merchant's hash tag, written by the record's own script", async () => {
    const made = await make();
    try {
      const r = record({ merchantId: 'm:1' });
      await made.store.insertIfAbsent(r);
      await made.store.update('m:1', r.referenceId, (c) => ({ ...c, status: 'SUCCESSFUL', version: c.version + 1 }));
      await withRedis(async (client) => {
        const key = `${made.prefix}{m%3A1}:changes`;
        expect(await client.type(key)).toBe('stream');
        expect(await client.xlen(key)).toBe(1);
        expect(await client.pttl(key)).toBeGreaterThan(0);
      });
    } finally {
      await made.cleanup();
    }
  });
});
