import { setTimeout as sleep } from 'node:timers/promises';
import { BatchItem, DisbursementBatches } from '../../src/disbursements/disbursement.batch';
import { providerRateLimited } from '../../src/disbursements/disbursement.errors';
import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';

/** These batches hold no beneficiary items. */
const unused = () => Promise.reject(new Error('no beneficiary items in this batch'));

const merchant = { id: 'm1', apiKey: 'k' };
const item = (i: number): BatchItem => ({
  referenceId: `r${i}`,
  request: {
    channel: 'MOBILE_MONEY',
    referenceId: `r${i}`,
    amount: '1',
    currency: 'ZMW',
    accountNumber: '260971234567',
  },
});
const recordOf = (request: DisbursementRequest) =>
  ({ referenceId: request.referenceId, status: 'PENDING' }) as Disbursement;

describe('DisbursementBatches rules', () => {
  it('runs at most 8 creates at once and keeps the input order', async () => {
    let running = 0;
    let most = 0;
    const batches = new DisbursementBatches({
      pay: unused,
      getMany: async (_m, ids) => ids.map(() => undefined),
      create: async (_m, request) => {
        running += 1;
        most = Math.max(most, running);
        await sleep(Number(request.referenceId.slice(1)) % 3);
        running -= 1;
        return recordOf(request);
      },
    });
    const results = await batches.createAll(
      merchant,
      Array.from({ length: 50 }, (_, i) => item(i)),
    );
    expect(most).toBe(8);
    expect(results.map((r) => r.referenceId)).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}`));
  });

  it('sends nothing more for the merchant once the provider answers 429, until its Retry-After has passed', async () => {
    let now = 0;
    const sent: string[] = [];
    const batches = new DisbursementBatches({
      pay: unused,
      concurrency: 1,
      now: () => now,
      getMany: async (_m, ids) => ids.map(() => undefined),
      create: async (_m, request) => {
        sent.push(request.referenceId);
        if (request.referenceId === 'r2') throw providerRateLimited(30, request.referenceId);
        return recordOf(request);
      },
    });
    const first = await batches.createAll(merchant, [0, 1, 2, 3, 4].map(item));
    expect(sent).toEqual(['r0', 'r1', 'r2']);
    expect(first.slice(2).map((r) => 'error' in r && [r.error.code, r.error.details.retryAfter])).toEqual([
      ['RATE_LIMITED', 30],
      ['RATE_LIMITED', 30],
      ['RATE_LIMITED', 30],
    ]);
    now = 10_000;
    await batches.createAll(merchant, [item(5)]);
    expect(sent).toHaveLength(3);
    now = 30_000;
    await batches.createAll(merchant, [item(5)]);
    expect(sent).toEqual(['r0', 'r1', 'r2', 'r5']);
  });
});
