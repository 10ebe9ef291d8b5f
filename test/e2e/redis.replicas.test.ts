import { RedisEvents } from '../../src/events/redis.events';
import { RedisStore } from '../../src/store/redis.store';
import { describeRedis, requireRedisUrl, subscriptionsUnder, uniquePrefix } from '../support/redis';
import { watching } from '../store/events.contract';
import { record } from '../store/store.contract';

/** Two replicas: each with its own connections to one Redis, under one prefix. */
describeRedis('replicas sharing one Redis', () => {
  const { prefix, cleanup } = uniquePrefix();
  let a: RedisStore;
  let b: RedisStore;
  let eventsA: RedisEvents;
  let eventsB: RedisEvents;

  beforeAll(() => {
    const url = requireRedisUrl();
    [a, b] = [new RedisStore({ redis: url, prefix }), new RedisStore({ redis: url, prefix })];
    [eventsA, eventsB] = [new RedisEvents({ redis: url, prefix }), new RedisEvents({ redis: url, prefix })];
  });

  afterAll(async () => {
    await Promise.all([a, b, eventsA, eventsB].map((c) => c.close()));
    await cleanup();
  });

  it('lets only one of them claim a referenceId, and shows the other the claim', async () => {
    const referenceId = `claimed-${Date.now()}`;
    const claims = Array.from({ length: 20 }, (_, i) => record({ referenceId, amount: `${i + 1}.00`, sending: true }));
    const answers = await Promise.all(claims.map((c, i) => (i % 2 === 0 ? a : b).insertIfAbsent(c)));
    const winners = claims.filter((_, i) => answers[i] === undefined);
    expect(winners).toHaveLength(1);
    for (const answer of answers) if (answer) expect(answer).toEqual(winners[0]);
    expect(await b.get('merchant-1', referenceId)).toEqual(winners[0]);
  });

  it('loses no change when both update one record at once', async () => {
    const r = record();
    await a.insertIfAbsent(r);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).update(r.merchantId, r.referenceId, (c) => ({ ...c, version: c.version + 1 })),
      ),
    );
    expect((await a.get(r.merchantId, r.referenceId))?.version).toBe(51);
  });

  it('leases a due record to only one of them', async () => {
    const r = record({ nextCheckAt: new Date(Date.now() - 1000).toISOString() });
    await a.insertIfAbsent(r);
    const [dueOnA, dueOnB] = await Promise.all([a.due(new Date(), 100), b.due(new Date(), 100)]);
    expect(dueOnA.map((d) => d.referenceId)).toContain(r.referenceId);
    expect(dueOnB.map((d) => d.referenceId)).toContain(r.referenceId);
    const leases = [0, 1].map((i) => new Date(Date.now() + 30_000 + i).toISOString());
    const held = await Promise.all(
      [a, b].map((store, i) =>
        store.update(r.merchantId, r.referenceId, (c) =>
          c.nextCheckAt === r.nextCheckAt ? { ...c, nextCheckAt: leases[i] } : undefined,
        ),
      ),
    );
    expect(held.filter((h, i) => h?.nextCheckAt === leases[i])).toHaveLength(1);
    expect((await b.due(new Date(), 100)).map((d) => d.referenceId)).not.toContain(r.referenceId);
  });

  it('releases a claim on one that the other then sees gone', async () => {
    const r = record({ sending: true, nextCheckAt: new Date(Date.now() - 1000).toISOString() });
    await a.insertIfAbsent(r);
    await b.remove(r.merchantId, r.referenceId, (c) => c.sending);
    expect(await a.get(r.merchantId, r.referenceId)).toBeUndefined();
    expect((await a.due(new Date(), 100)).map((d) => d.referenceId)).not.toContain(r.referenceId);
  });

  it('tells a watcher on one about a change the other stored and published', async () => {
    const r = record();
    const watcher = watching(eventsB.watch(r.merchantId, r.referenceId));
    await subscriptionsUnder(prefix, 1);
    await a.insertIfAbsent(r);
    const changed = await a.update(r.merchantId, r.referenceId, (c) => ({
      ...c,
      status: 'SUCCESSFUL',
      version: c.version + 1,
    }));
    if (!changed) throw new Error('record vanished');
    await eventsA.publish(changed);
    expect(await watcher.first).toEqual(changed);
    await watcher.stop();
  });
});
