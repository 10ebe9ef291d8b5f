import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError, ProviderPort } from '../../src/disbursements/disbursement.ports';
import { MemoryBudgetLedger } from '../../src/upstream/memory.budget';
import { RedisBudgetLedger } from '../../src/upstream/redis.budget';
import { Redis } from 'ioredis';
import { closeRedis } from '../../src/redis/redis.connection';
import { BudgetedProvider, BudgetLedger } from '../../src/upstream/provider.budget';
import { describeRedis, requireRedisUrl, uniquePrefix } from '../support/redis';

/** Counts what reached it; answers every call at once. */
class CountingProvider implements ProviderPort {
  creates = 0;
  checks = 0;
  balances = 0;
  next429?: number;
  create(_m: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    this.creates += 1;
    if (this.next429 !== undefined)
      return Promise.reject(new ProviderError('rate-limited', 'slow down', { status: 429, retryAfter: this.next429 }));
    return Promise.resolve({
      referenceId: request.referenceId,
      status: 'PENDING',
      providerStatus: 'Pending',
      paymentType: 'OTHER',
    });
  }
  checkStatus(_m: Merchant, referenceId: string): Promise<ProviderRecord | undefined> {
    this.checks += 1;
    return Promise.resolve({ referenceId, status: 'PENDING', providerStatus: 'Pending', paymentType: 'OTHER' });
  }
  balance(): Promise<ProviderBalance> {
    this.balances += 1;
    return Promise.resolve({ amount: '1' });
  }
}

const request = (i: number): DisbursementRequest => ({
  channel: 'MOBILE_MONEY',
  referenceId: `r${i}`,
  amount: '1',
  currency: 'ZMW',
  accountNumber: '260971234567',
});
const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'ok' as const,
    (e: unknown) => (e instanceof ProviderError ? e.kind : 'other'),
  );

function budgetContract(name: string, ledger: () => BudgetLedger) {
  describe(name, () => {
    const merchant = (): Merchant => ({ id: `m-${Math.random()}`, apiKey: `key-${Math.random()}` });

    it('status checks of every kind take at most half of UPSTREAM_RATE_LIMIT_PER_MIN; creates still have room', async () => {
      const inner = new CountingProvider();
      const provider = new BudgetedProvider(inner, {
        ledger: ledger(),
        providerUrl: 'https://provider.test',
        perMinute: 100,
      });
      const m = merchant();
      const reads = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          settled(i % 2 === 0 ? provider.checkStatus(m, `x${i}`, 'reconcile') : provider.balance(m)),
        ),
      );
      expect(inner.checks + inner.balances).toBeLessThanOrEqual(50);
      expect(reads.filter((r) => r === 'rate-limited')).toHaveLength(200 - inner.checks - inner.balances);
      const creates = await Promise.all(Array.from({ length: 40 }, (_, i) => settled(provider.create(m, request(i)))));
      expect(creates.every((c) => c === 'ok')).toBe(true);
      expect(inner.creates).toBe(40);
    });

    it('refreshes of one record reach the provider once in a few seconds; unknown references a few a minute', async () => {
      const inner = new CountingProvider();
      const provider = new BudgetedProvider(inner, {
        ledger: ledger(),
        providerUrl: 'https://provider.test',
        perMinute: 100,
      });
      const m = merchant();
      await Promise.all(Array.from({ length: 20 }, () => settled(provider.checkStatus(m, 'same', 'refresh'))));
      expect(inner.checks).toBe(1);
      const phantom = await Promise.all(
        Array.from({ length: 30 }, (_, i) => settled(provider.checkStatus(m, `p${i}`, 'unknown-reference'))),
      );
      expect(phantom.filter((r) => r === 'ok').length).toBeLessThanOrEqual(5);
      expect(inner.checks).toBeLessThanOrEqual(6);
    });

    it('after a provider 429 nothing is sent for the key until Retry-After has passed; other keys go on', async () => {
      const inner = new CountingProvider();
      const shared = ledger();
      const provider = new BudgetedProvider(inner, {
        ledger: shared,
        providerUrl: 'https://provider.test',
        perMinute: 100,
      });
      // Another replica, the same ledger.
      const replica = new BudgetedProvider(inner, {
        ledger: shared,
        providerUrl: 'https://provider.test',
        perMinute: 100,
      });
      const m = merchant();
      inner.next429 = 30;
      expect(await settled(provider.create(m, request(1)))).toBe('rate-limited');
      inner.next429 = undefined;
      const sent = inner.creates;
      const paused = await replica.create(m, request(2)).catch((e: unknown) => e);
      expect(paused).toBeInstanceOf(ProviderError);
      expect((paused as ProviderError).details.retryAfter).toBeGreaterThanOrEqual(29);
      expect(await settled(replica.checkStatus(m, 'y', 'reconcile'))).toBe('rate-limited');
      expect(inner.creates).toBe(sent);
      expect(inner.checks).toBe(0);
      expect(await settled(provider.create(merchant(), request(3)))).toBe('ok');
    });
  });
}

budgetContract('memory ledger', () => new MemoryBudgetLedger());

describeRedis('redis ledger', () => {
  const keys = uniquePrefix();
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(requireRedisUrl(), { maxRetriesPerRequest: 0 });
  });
  afterAll(async () => {
    await keys.cleanup();
    await closeRedis(redis);
  });
  budgetContract('redis ledger', () => new RedisBudgetLedger(redis, keys.prefix));
});
