import { randomUUID } from 'node:crypto';
import { MemoryRelayQueue } from '../../src/relay/memory.relay-queue';
import { RedisRelayQueue } from '../../src/relay/redis.relay-queue';
import { RelayJob, RelayQueue } from '../../src/relay/relay.queue';
import { describeRedis, requireRedisUrl, uniquePrefix } from '../support/redis';

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
});
