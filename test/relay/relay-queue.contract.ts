import { randomUUID } from 'node:crypto';
import { RelayJob } from '../../src/disbursements/relay.job';
import { LeasedRelayJob, RelayQueue } from '../../src/relay/relay.queue';
import { databasePerTest, Engine } from '../support/engines';

const job = (overrides: Partial<RelayJob> = {}): RelayJob => ({
  merchantId: 'merchant:1',
  referenceId: `ref-${randomUUID()}`,
  url: 'https://client.example/hook',
  webhookId: `relay_${randomUUID()}`,
  body: '{"type":"disbursement.final"}',
  ...overrides,
});

const at = (ms: number) => new Date(1_800_000_000_000 + ms);
const refs = (jobs: { referenceId: string }[]) => jobs.map((j) => j.referenceId);

/** What every RelayQueue promises, on a database of each test's own of `engine`. */
export function relayQueueContract(engine: Engine): void {
  const db = databasePerTest(engine);
  let queue: RelayQueue;
  beforeEach(() => {
    queue = db().relayQueue();
  });

  it('hands a due job to one holder at a time, with its body and webhook-id', async () => {
    const j = job({ requestId: 'req-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    await db().queueRelay(j, at(0));
    expect(await queue.lease(at(-1), 10, at(1000))).toEqual([]);
    const [leased] = await queue.lease(at(0), 10, at(1000));
    expect(leased).toEqual({ ...j, attempts: 0, lease: expect.any(String) });
    expect(await queue.lease(at(999), 10, at(2000))).toEqual([]);
  });

  it('keeps one job per payout when enqueued again, even while it is held', async () => {
    const j = job();
    await db().queueRelay(j, at(0));
    await db().queueRelay({ ...j, body: 'other' }, at(0));
    const leased = await queue.lease(at(0), 10, at(1000));
    expect(leased.map((l) => l.body)).toEqual([j.body]);
    await db().queueRelay({ ...j, body: 'later' }, at(0));
    expect(await queue.lease(at(500), 10, at(2000))).toEqual([]);
    expect((await queue.lease(at(1000), 10, at(2000))).map((l) => l.body)).toEqual([j.body]);
  });

  it('puts a job back with one more attempt, due when asked', async () => {
    await db().queueRelay(job(), at(0));
    const [first] = await queue.lease(at(0), 10, at(1000));
    await queue.retry(first, at(500));
    expect(await queue.lease(at(499), 10, at(2000))).toEqual([]);
    const [second] = await queue.lease(at(500), 10, at(2000));
    expect(second.attempts).toBe(1);
    expect(second.webhookId).toBe(first.webhookId);
    await queue.finish(second);
    expect(await queue.lease(at(10_000), 10, at(20_000))).toEqual([]);
  });

  it('gives a job whose holder vanished to the next one once the lease ends; the old holder can no longer touch it', async () => {
    await db().queueRelay(job(), at(0));
    const [lost] = await queue.lease(at(0), 10, at(1000));
    const [taken] = await queue.lease(at(1000), 10, at(2000));
    expect(taken.webhookId).toBe(lost.webhookId);
    expect(taken.lease).not.toBe(lost.lease);
    await queue.finish(lost);
    await queue.retry(lost, at(1001));
    expect(await queue.lease(at(1500), 10, at(3000))).toEqual([]);
    const [again] = await queue.lease(at(2000), 10, at(3000));
    expect(again).toMatchObject({ webhookId: lost.webhookId, attempts: 0 });
    await queue.finish(again);
    expect(await queue.lease(at(10_000), 10, at(20_000))).toEqual([]);
  });

  it('leases at most the limit, earliest first, and only what is due', async () => {
    const jobs = [job(), job(), job(), job()];
    await db().queueRelay(jobs[2], at(2));
    await db().queueRelay(jobs[0], at(0));
    await db().queueRelay(jobs[1], at(1));
    await db().queueRelay(jobs[3], at(6));
    expect(refs(await queue.lease(at(5), 2, at(1000)))).toEqual(refs([jobs[0], jobs[1]]));
    expect(refs(await queue.lease(at(5), 10, at(1000)))).toEqual(refs([jobs[2]]));
    expect(await queue.lease(at(5), 0, at(1000))).toEqual([]);
  });

  it('takes merchants in turn, the one waiting longest first', async () => {
    const ofA = [job({ merchantId: 'A' }), job({ merchantId: 'A' }), job({ merchantId: 'A' })];
    const ofB = [job({ merchantId: 'B' }), job({ merchantId: 'B' })];
    for (const [i, j] of ofB.entries()) await db().queueRelay(j, at(i));
    for (const [i, j] of ofA.entries()) await db().queueRelay(j, at(10 + i));
    expect(refs(await queue.lease(at(100), 4, at(1000)))).toEqual(refs([ofB[0], ofA[0], ofB[1], ofA[1]]));
  });

  it('takes no more of a merchant than its cap less what the caller holds', async () => {
    const ofA = Array.from({ length: 50 }, () => job({ merchantId: 'A' }));
    for (const [i, j] of ofA.entries()) await db().queueRelay(j, at(i));
    const ofB = [job({ merchantId: 'B:2' }), job({ merchantId: 'B:2' })];
    for (const [i, j] of ofB.entries()) await db().queueRelay(j, at(100 + i));
    const leased = await queue.lease(at(200), 6, at(1000), { perMerchant: 4, busy: new Map([['A', 1]]) });
    // A's earliest job waits longest, so A goes first; then B; A has room for 3 more, B for its 2.
    expect(refs(leased)).toEqual(refs([ofA[0], ofB[0], ofA[1], ofB[1], ofA[2]]));
    const full = await queue.lease(at(200), 6, at(1000), {
      perMerchant: 4,
      busy: new Map([
        ['A', 4],
        ['B:2', 0],
      ]),
    });
    expect(full).toEqual([]);
  });

  it('never gives one job to two instances leasing at once', async () => {
    const jobs = ['A', 'B', 'C'].flatMap((merchantId) => Array.from({ length: 10 }, () => job({ merchantId })));
    for (const [i, j] of jobs.entries()) await db().queueRelay(j, at(i));
    const queues = [queue, db().relayQueue()];
    const taken: LeasedRelayJob[] = [];
    // Each instance leases until nothing is left, both at once.
    await Promise.all(
      queues.map(async (q) => {
        for (;;) {
          const leased = await q.lease(at(100), 4, at(60_000));
          if (leased.length === 0) return;
          taken.push(...leased);
        }
      }),
    );
    expect(taken).toHaveLength(jobs.length);
    expect(new Set(refs(taken))).toEqual(new Set(refs(jobs)));
  });
}
