import { randomUUID } from 'node:crypto';
import { MemoryRelayQueue } from '../../src/relay/memory.relay-queue';
import { RedisRelayQueue } from '../../src/relay/redis.relay-queue';
import { RelayJob, RelayQueue } from '../../src/relay/relay.queue';
import { describeRedis, requireRedisUrl, uniquePrefix, withRedis } from '../support/redis';

const job = (overrides: Partial<RelayJob> = {}): RelayJob => ({
  merchantId: 'merchant:1',
  referenceId: `ref-${randomUUID()}`,
  url: 'https://client.example/hook',
  webhookId: `relay_${randomUUID()}`,
  body: '{"type":"disbursement.final"}',
  ...overrides,
});

const at = (ms: number) => new Date(1_800_000_000_000 + ms);

function queueContract(make: () => Promise<{ queue: RelayQueue; cleanup(): Promise<void> }>): void {
  let queue: RelayQueue;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ queue, cleanup } = await make());
  });
  afterEach(() => cleanup());

  it('hands a due job to one holder at a time, with its body and webhook-id', async () => {
    const j = job();
    await queue.enqueue(j, at(0));
    expect(await queue.lease(at(-1), 10, at(1000))).toEqual([]);
    const [leased] = await queue.lease(at(0), 10, at(1000));
    expect(leased).toEqual({ ...j, attempts: 0, lease: expect.any(String) });
    expect(await queue.lease(at(999), 10, at(2000))).toEqual([]);
  });

  it('keeps one job per payout when enqueued twice', async () => {
    const j = job();
    await queue.enqueue(j, at(0));
    await queue.enqueue({ ...j, body: 'other' }, at(0));
    const leased = await queue.lease(at(0), 10, at(1000));
    expect(leased.map((l) => l.body)).toEqual([j.body]);
  });

  it('puts a job back with one more attempt, due when asked', async () => {
    await queue.enqueue(job(), at(0));
    const [first] = await queue.lease(at(0), 10, at(1000));
    await queue.retry(first, at(500));
    expect(await queue.lease(at(499), 10, at(2000))).toEqual([]);
    const [second] = await queue.lease(at(500), 10, at(2000));
    expect(second.attempts).toBe(1);
    expect(second.webhookId).toBe(first.webhookId);
  });

  it('gives a job whose holder vanished to the next one once the lease ends; the old holder can no longer touch it', async () => {
    await queue.enqueue(job(), at(0));
    const [lost] = await queue.lease(at(0), 10, at(1000));
    const [taken] = await queue.lease(at(1000), 10, at(2000));
    expect(taken.webhookId).toBe(lost.webhookId);
    expect(taken.lease).not.toBe(lost.lease);
    await queue.finish(lost);
    await queue.retry(lost, at(1001));
    expect(await queue.lease(at(1500), 10, at(3000))).toEqual([]);
    await queue.finish(taken);
    expect(await queue.lease(at(10_000), 10, at(20_000))).toEqual([]);
  });

  it('leases at most the limit, earliest first', async () => {
    const jobs = [job(), job(), job()];
    await queue.enqueue(jobs[2], at(2));
    await queue.enqueue(jobs[0], at(0));
    await queue.enqueue(jobs[1], at(1));
    const leased = await queue.lease(at(5), 2, at(1000));
    expect(leased.map((l) => l.referenceId)).toEqual([jobs[0].referenceId, jobs[1].referenceId]);
  });

  it('takes merchants in turn, and no more of one than its cap less what the caller holds', async () => {
    const ofA = Array.from({ length: 50 }, () => job({ merchantId: 'A' }));
    for (const [i, j] of ofA.entries()) await queue.enqueue(j, at(i));
    const ofB = [job({ merchantId: 'B:2' }), job({ merchantId: 'B:2' })];
    for (const [i, j] of ofB.entries()) await queue.enqueue(j, at(100 + i));
    const leased = await queue.lease(at(200), 6, at(1000), { perMerchant: 4, busy: new Map([['A', 1]]) });
    // A's earliest job waits longest, so A goes first; then B; A has room for 3 more, B for its 2.
    expect(leased.map((l) => l.referenceId)).toEqual([
      ofA[0].referenceId,
      ofB[0].referenceId,
      ofA[1].referenceId,
      ofB[1].referenceId,
      ofA[2].referenceId,
    ]);
  });
}

describe('MemoryRelayQueue', () => {
  queueContract(async () => {
    const queue = new MemoryRelayQueue();
    return { queue, cleanup: () => queue.close() };
  });
});

describeRedis('RedisRelayQueue', () => {
  queueContract(async () => {
    const { prefix, cleanup } = uniquePrefix();
    const queue = new RedisRelayQueue({ redis: requireRedisUrl(), prefix, retentionSeconds: 3600 });
    return {
      queue,
      async cleanup() {
        await queue.close();
        await cleanup();
      },
    };
  });

  it('leases a job that an earlier version queued in its single due set', async () => {
    const { prefix, cleanup } = uniquePrefix();
    const queue = new RedisRelayQueue({ redis: requireRedisUrl(), prefix, retentionSeconds: 3600 });
    try {
      const old = job({ merchantId: 'merchant:1' });
      const key = `${prefix}{relay}:job:merchant%3A1:${old.referenceId}`;
      await withRedis(async (redis) => {
        await redis.hset(key, 'job', JSON.stringify(old), 'attempts', '2', 'lease', '');
        await redis.zadd(`${prefix}{relay}:due`, at(0).getTime(), key);
      });
      const [leased] = await queue.lease(at(1), 10, at(1000));
      expect(leased).toMatchObject({ referenceId: old.referenceId, attempts: 2 });
      await queue.finish(leased);
      expect(await queue.lease(at(5000), 10, at(6000))).toEqual([]);
    } finally {
      await queue.close();
      await cleanup();
    }
  });
});
