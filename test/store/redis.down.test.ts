import { Disbursement } from '../../src/disbursements/disbursement.model';
import { RedisEvents } from '../../src/events/redis.events';
import { RedisStore } from '../../src/store/redis.store';
import { describeRedis, requireRedisUrl, startRedisProxy, subscriptionsUnder, uniquePrefix } from '../support/redis';
import { watching } from './events.contract';
import { record } from './store.contract';

/** Where nothing listens: connections are refused at once. */
const NOWHERE = 'redis://127.0.0.1:1';

const bump = (r: Disbursement) => ({ ...r, version: r.version + 1 });

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describeRedis('Redis unreachable', () => {
  it('makes the store reject each call instead of queueing it, and report unhealthy', async () => {
    const errors: Error[] = [];
    const store = new RedisStore({ redis: NOWHERE, prefix: uniquePrefix().prefix, onError: (e) => errors.push(e) });
    try {
      const r = record();
      for (let attempt = 0; attempt < 3; attempt += 1) await expect(store.insertIfAbsent(r)).rejects.toThrow();
      await expect(store.update(r.merchantId, r.referenceId, bump)).rejects.toThrow();
      await expect(store.get(r.merchantId, r.referenceId)).rejects.toThrow();
      expect(await store.healthy()).toBe(false);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('makes events report a failed publish rather than throw it, and report unhealthy', async () => {
    const errors: Error[] = [];
    const events = new RedisEvents({ redis: NOWHERE, prefix: uniquePrefix().prefix, onError: (e) => errors.push(e) });
    try {
      await expect(events.publish(record())).resolves.toBeUndefined();
      await until(async () => errors.some((e) => /max retries/i.test(e.message)));
      expect(await events.healthy()).toBe(false);
    } finally {
      await events.close();
    }
  });

  describe('and back again', () => {
    const { prefix, cleanup } = uniquePrefix();
    afterAll(cleanup);

    it('fails the store fast while Redis is away, and it reconnects by itself', async () => {
      const proxy = await startRedisProxy();
      const store = new RedisStore({ redis: proxy.url, prefix });
      try {
        const r = record();
        expect(await store.insertIfAbsent(r)).toBeUndefined();
        await proxy.down();
        await expect(store.update(r.merchantId, r.referenceId, bump)).rejects.toThrow();
        await expect(store.insertIfAbsent(record())).rejects.toThrow();
        expect(await store.healthy()).toBe(false);
        await proxy.up();
        await until(() => store.healthy());
        expect((await store.update(r.merchantId, r.referenceId, bump))?.version).toBe(2);
      } finally {
        await store.close();
        await proxy.down();
      }
    });

    it('resubscribes watchers by itself once Redis is back', async () => {
      const proxy = await startRedisProxy();
      const viaProxy = new RedisEvents({ redis: proxy.url, prefix });
      const direct = new RedisEvents({ redis: requireRedisUrl(), prefix });
      try {
        const r = record();
        const watcher = watching(viaProxy.watch(r.merchantId, r.referenceId));
        await subscriptionsUnder(prefix, 1);
        await proxy.down();
        await subscriptionsUnder(prefix, 0);
        await proxy.up();
        await subscriptionsUnder(prefix, 1);
        await direct.publish({ ...r, version: 2 });
        expect((await watcher.first)?.version).toBe(2);
        await watcher.stop();
      } finally {
        await Promise.all([viaProxy.close(), direct.close()]);
        await proxy.down();
      }
    });
  });
});
