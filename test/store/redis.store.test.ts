import { Redis } from 'ioredis';
import { RedisStore } from '../../src/store/redis.store';
import { describeRedis, requireRedisUrl, uniquePrefix, withRedis } from '../support/redis';
import { record, storeContract } from './store.contract';

const makeStore = async (retentionSeconds?: number) => {
  const { prefix, cleanup } = uniquePrefix();
  const store = new RedisStore({ redis: requireRedisUrl(), prefix, retentionSeconds });
  return {
    store,
    prefix,
    async cleanup() {
      await store.close();
      await cleanup();
    },
  };
};

describeRedis('RedisStore', () => {
  storeContract('redis', () => makeStore());

  describe('layout', () => {
    let made: Awaited<ReturnType<typeof makeStore>>;
    beforeEach(async () => {
      made = await makeStore(3600);
    });
    afterEach(async () => {
      await made.cleanup();
    });

    it('keeps one JSON key per record, with escaped ids, and a due index scored in ms', async () => {
      const r = record({ merchantId: 'm:1', referenceId: 'r%:2', nextCheckAt: '2026-01-01T00:00:05.000Z' });
      await made.store.insertIfAbsent(r);
      const key = `${made.prefix}{m%3A1}:d:r%25%3A2`;
      await withRedis(async (client) => {
        expect(JSON.parse((await client.get(key)) ?? 'null')).toEqual(r);
        expect(await client.zrange(`${made.prefix}{m%3A1}:due`, 0, -1, 'WITHSCORES')).toEqual([
          key,
          String(Date.UTC(2026, 0, 1, 0, 0, 5)),
        ]);
        expect(await client.smembers(`${made.prefix}merchants`)).toEqual(['m:1']);
      });
    });

    it('changes what is stored, not its own last write, when another replica wrote since (or deleted the record)', async () => {
      const other = new RedisStore({ redis: requireRedisUrl(), prefix: made.prefix });
      try {
        const r = record({ status: 'PENDING' });
        await made.store.insertIfAbsent(r);
        await other.update(r.merchantId, r.referenceId, (c) => ({
          ...c,
          status: 'SUCCESSFUL',
          version: c.version + 1,
        }));
        const seen: string[] = [];
        const after = await made.store.update(r.merchantId, r.referenceId, (c) => {
          seen.push(c.status);
          return { ...c, narration: 'noted' };
        });
        expect(after).toMatchObject({ status: 'SUCCESSFUL', narration: 'noted', version: r.version + 1 });
        expect(seen.at(-1)).toBe('SUCCESSFUL');
        // A change that finds nothing to do still reports what is stored, not the guess.
        await other.update(r.merchantId, r.referenceId, (c) => ({ ...c, narration: 'other', version: c.version + 1 }));
        expect(await made.store.update(r.merchantId, r.referenceId, () => undefined)).toMatchObject({
          narration: 'other',
        });
        await made.store.update(r.merchantId, r.referenceId, (c) => ({ ...c, message: 'mine' }));
        await other.remove(r.merchantId, r.referenceId, () => true);
        expect(
          await made.store.update(r.merchantId, r.referenceId, (c) => ({ ...c, message: 'again' })),
        ).toBeUndefined();
        expect(await made.store.get(r.merchantId, r.referenceId)).toBeUndefined();
      } finally {
        await other.close();
      }
    });

    it('sets the retention TTL on every write, and on the due index', async () => {
      const r = record({ nextCheckAt: '2026-01-01T00:00:00.000Z' });
      const key = `${made.prefix}{${r.merchantId}}:d:${r.referenceId}`;
      await made.store.insertIfAbsent(r);
      await withRedis(async (client) => {
        expect(await client.ttl(key)).toBeGreaterThan(3590);
        expect(await client.ttl(`${made.prefix}{${r.merchantId}}:due`)).toBeGreaterThan(3590);
        await client.expire(key, 10);
        await made.store.update(r.merchantId, r.referenceId, (c) => ({ ...c, version: c.version + 1 }));
        expect(await client.ttl(key)).toBeGreaterThan(3590);
      });
    });

    it('skips and drops due entries whose record expired', async () => {
      const [gone, kept] = [
        record({ nextCheckAt: '2026-01-01T00:00:00.000Z' }),
        record({ nextCheckAt: '2026-01-01T00:00:01.000Z' }),
      ];
      await made.store.insertIfAbsent(gone);
      await made.store.insertIfAbsent(kept);
      const goneKey = `${made.prefix}{${gone.merchantId}}:d:${gone.referenceId}`;
      await withRedis(async (client) => {
        await client.pexpire(goneKey, 1);
        while ((await client.exists(goneKey)) === 1) await new Promise((r) => setTimeout(r, 5));
        expect(await made.store.due(new Date('2026-01-02T00:00:00.000Z'), 10)).toEqual([kept]);
        expect(await client.zscore(`${made.prefix}{${gone.merchantId}}:due`, goneKey)).toBeNull();
      });
    });

    it('merges the due indexes of every merchant, earliest first, up to the limit', async () => {
      const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      const [a1, b1, a2, b2] = [
        record({ merchantId: 'a', nextCheckAt: at(1) }),
        record({ merchantId: 'b', nextCheckAt: at(2) }),
        record({ merchantId: 'a', nextCheckAt: at(3) }),
        record({ merchantId: 'b', nextCheckAt: at(4) }),
      ];
      for (const r of [b2, a2, b1, a1]) await made.store.insertIfAbsent(r);
      expect(await made.store.due(new Date(at(10)), 3)).toEqual([a1, b1, a2]);
      expect(await made.store.due(new Date(at(2)), 10)).toEqual([a1, b1]);
    });

    it("keeps each merchant's history in a sorted set under its hash tag, which expired records leave", async () => {
      const [gone, kept] = [
        record({ updatedAt: '2026-01-01T00:00:00.000Z' }),
        record({ updatedAt: '2026-01-01T00:00:01.000Z' }),
      ];
      await made.store.insertIfAbsent(gone);
      await made.store.insertIfAbsent(kept);
      const histKey = `${made.prefix}{${gone.merchantId}}:hist`;
      const goneKey = `${made.prefix}{${gone.merchantId}}:d:${gone.referenceId}`;
      await withRedis(async (client) => {
        expect(await client.zrange(histKey, 0, -1, 'WITHSCORES')).toEqual([
          gone.referenceId,
          String(Date.UTC(2026, 0, 1)),
          kept.referenceId,
          String(Date.UTC(2026, 0, 1, 0, 0, 1)),
        ]);
        expect(await client.ttl(histKey)).toBeGreaterThan(3000);
        await client.pexpire(goneKey, 1);
        while ((await client.exists(goneKey)) === 1) await new Promise((r) => setTimeout(r, 5));
        const page = await made.store.history(gone.merchantId, { limit: 10, filter: {} });
        expect(page.entries.map((e) => e.record)).toEqual([kept]);
        expect(page.totalCount).toBe(1);
        expect(await client.zscore(histKey, gone.referenceId)).toBeNull();
      });
    });

    it('reads many records with one MGET', async () => {
      const records = [record(), record(), record()];
      for (const r of records) await made.store.insertIfAbsent(r);
      const sent = jest.spyOn(Redis.prototype, 'sendCommand');
      try {
        expect(
          await made.store.getMany(
            'merchant-1',
            records.map((r) => r.referenceId),
          ),
        ).toEqual(records);
        expect(sent.mock.calls.map(([command]) => command.name)).toEqual(['mget']);
      } finally {
        sent.mockRestore();
      }
    });
  });

  it('refuses a retention that Redis could not apply', () => {
    expect(() => new RedisStore({ redis: requireRedisUrl(), prefix: 'unused:', retentionSeconds: 0 })).toThrow(
      'retentionSeconds',
    );
  });
});
