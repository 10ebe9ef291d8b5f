import { Redis } from 'ioredis';
import { RedisEvents } from '../../src/events/redis.events';
import { describeRedis, requireRedisUrl, subscriptionsUnder, uniquePrefix } from '../support/redis';
import { eventsContract, watching } from './events.contract';
import { record } from './store.contract';

describeRedis('RedisEvents', () => {
  eventsContract('redis', async () => {
    const { prefix } = uniquePrefix();
    const events = new RedisEvents({ redis: requireRedisUrl(), prefix });
    return { events, listening: (count) => subscriptionsUnder(prefix, count), cleanup: () => events.close() };
  });

  describe('across instances, as across replicas', () => {
    const opened: RedisEvents[] = [];
    const open = (prefix: string) => {
      const events = new RedisEvents({ redis: requireRedisUrl(), prefix });
      opened.push(events);
      return events;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((e) => e.close()));
    });

    it('delivers what one instance publishes to watchers on another of the same prefix', async () => {
      const { prefix } = uniquePrefix();
      const [a, b] = [open(prefix), open(prefix)];
      const r = record();
      const onA = watching(a.watch(r.merchantId, r.referenceId));
      const onB = watching(b.watchMerchant(r.merchantId));
      await subscriptionsUnder(prefix, 2);
      await a.publish(r);
      expect(await onB.first).toEqual(r);
      expect(await onA.first).toEqual(r);
      await b.publish({ ...r, version: 2 });
      expect((await onA.next())?.version).toBe(2);
      await Promise.all([onA.stop(), onB.stop()]);
    });

    it('keeps gateways with different prefixes apart', async () => {
      const [one, two] = [uniquePrefix().prefix, uniquePrefix().prefix];
      const [a, b] = [open(one), open(two)];
      const r = record();
      const onA = watching(a.watch(r.merchantId, r.referenceId));
      const onB = watching(b.watch(r.merchantId, r.referenceId));
      await subscriptionsUnder(one, 1);
      await subscriptionsUnder(two, 1);
      await a.publish(r);
      expect(await onA.first).toEqual(r);
      // Redis handled A's PUBLISH before B's, so B would have heard A's first.
      await b.publish({ ...r, version: 2 });
      expect((await onB.first)?.version).toBe(2);
      await Promise.all([onA.stop(), onB.stop()]);
    });

    it('publishes the record as JSON on channels under the prefix', async () => {
      const { prefix } = uniquePrefix();
      const events = open(prefix);
      const r = record({ referenceId: 'ref:1' });
      const listener = new Redis(requireRedisUrl());
      try {
        const heard = new Promise<[string, string]>((resolve) =>
          listener.on('message', (channel: string, message: string) => resolve([channel, message])),
        );
        await listener.subscribe(`${prefix}{${r.merchantId}}:disbursement:${r.referenceId}`);
        await events.publish(r);
        expect(await heard).toEqual([`${prefix}{${r.merchantId}}:disbursement:ref:1`, JSON.stringify(r)]);
      } finally {
        await listener.quit();
      }
    });

    it('closes with watchers still listening, and counts their late unsubscribes as no failure', async () => {
      const { prefix } = uniquePrefix();
      const errors: Error[] = [];
      const events = new RedisEvents({ redis: requireRedisUrl(), prefix, onError: (e) => errors.push(e) });
      const payout = watching(events.watch('merchant-1', 'ref-1'));
      await subscriptionsUnder(prefix, 1);
      await events.close();
      await payout.stop();
      await new Promise((r) => setImmediate(r));
      expect(errors).toEqual([]);
      await subscriptionsUnder(prefix, 0);
    });

    it('unsubscribes when the last watcher of a channel stops, and is unhealthy once closed', async () => {
      const { prefix } = uniquePrefix();
      const events = open(prefix);
      const payout = watching(events.watch('merchant-1', 'ref-1'));
      await subscriptionsUnder(prefix, 1);
      await payout.stop();
      await subscriptionsUnder(prefix, 0);
      await events.close();
      await expect(events.healthy()).resolves.toBe(false);
    });
  });
});
