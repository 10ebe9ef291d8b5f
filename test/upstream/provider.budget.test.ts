import { DisbursementRequest, ProviderBalance, ProviderRecord } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError, ProviderPort } from '../../src/disbursements/disbursement.ports';
import { openSqlite, SqliteHandle } from '../../src/database/sqlite.open';
import { BudgetedProvider, BudgetLedger } from '../../src/upstream/provider.budget';
import { SqliteBudgetLedger } from '../../src/upstream/sqlite.budget';
const T0 = Date.UTC(2026, 0, 1);

/** The embedded ledger on a database of each test's own, its clock in the test's hands. */
function sqliteLedger(): { ledger: (now?: () => number) => BudgetLedger } {
  let handle: SqliteHandle | undefined;
  beforeEach(() => {
    handle = openSqlite(':memory:');
  });
  afterEach(() => handle?.close());
  return {
    ledger: (now = () => T0) => {
      if (!handle) throw new Error('the database of this test is not open');
      return new SqliteBudgetLedger(handle, now);
    },
  };
}

describe('BudgetLedger over time (SQLite, whose clock a test moves)', () => {
  const { ledger: open } = sqliteLedger();
  let clock: number;
  let ledger: BudgetLedger;
  beforeEach(() => {
    clock = T0;
    ledger = open(() => clock);
  });

  it('refills continuously, never past the bucket', async () => {
    for (let i = 0; i < 10; i += 1) expect(await ledger.take('k', 10, false)).toEqual({ taken: true });
    expect(await ledger.take('k', 10, false)).toEqual({ taken: false, waitMs: 6000, paused: false });
    clock += 3000;
    expect(await ledger.take('k', 10, false)).toEqual({ taken: false, waitMs: 3000, paused: false });
    clock += 3000;
    expect(await ledger.take('k', 10, false)).toEqual({ taken: true });
    clock += 3_600_000;
    let taken = 0;
    while ((await ledger.take('k', 10, false)).taken) taken += 1;
    expect(taken).toBe(10);
  });

  it("refills the reads' half at half the rate", async () => {
    for (let i = 0; i < 10; i += 1) expect(await ledger.take('k', 20, true)).toEqual({ taken: true });
    expect(await ledger.take('k', 20, true)).toEqual({ taken: false, waitMs: 6000, paused: false });
    clock += 6000;
    expect(await ledger.take('k', 20, true)).toEqual({ taken: true });
    expect(await ledger.take('k', 20, true)).toMatchObject({ taken: false });
  });

  it("ends a pause when the provider's Retry-After has passed", async () => {
    await ledger.pause('k', 30_000);
    clock += 29_999;
    expect(await ledger.take('k', 10, false)).toEqual({ taken: false, waitMs: 1, paused: true });
    clock += 1;
    expect(await ledger.take('k', 10, false)).toEqual({ taken: true });
  });

  it('gives a claim to the next caller once it ended', async () => {
    expect(await ledger.claim('c', 3000)).toBe(true);
    clock += 2999;
    expect(await ledger.claim('c', 3000)).toBe(false);
    clock += 1;
    expect(await ledger.claim('c', 3000)).toBe(true);
  });
});

describe('the embedded ledger counts in memory', () => {
  it('takes without a write of its own; the counts reach the file with the next group commit', async () => {
    const handle = openSqlite(':memory:');
    try {
      const ledger = new SqliteBudgetLedger(handle, () => T0);
      const write = jest.spyOn(handle.writes, 'write');
      expect(await ledger.takePair('k', 10)).toEqual({ first: { taken: true }, second: true });
      expect(await ledger.take('k', 10, false)).toEqual({ taken: true });
      expect(write).not.toHaveBeenCalled();
      const row = () => handle.db.prepare('SELECT tokens FROM provider_budgets WHERE key = ?').get('k');
      expect(row()).toBeUndefined();
      await handle.writes.write(() => undefined);
      expect(row()).toEqual({ tokens: 7 });
      // Another ledger on the file (as after a restart of the ledger, not the process) counts on.
      expect(await new SqliteBudgetLedger(handle, () => T0).take('k', 10, false)).toEqual({ taken: true });
    } finally {
      handle.close();
    }
  });
});

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

/** BudgetedProvider's spending rules, over a ledger of each test's own whose clock stands still. */
describe('BudgetedProvider over the embedded ledger', () => {
  const { ledger } = sqliteLedger();
  const merchant = (): Merchant => ({ id: `m-${Math.random()}`, apiKey: `key-${Math.random()}` });

  /** Each step's calls go out together; `sent`: how many of each step reached the provider. */
  it.each<{ name: string; perMinute: number; steps: ({ create: number } | { read: number })[]; sent: number[] }>([
    {
      name: 'after a batch of creates, reads pass',
      perMinute: 100,
      steps: [{ create: 60 }, { read: 10 }],
      sent: [60, 10],
    },
    {
      name: 'reads stop where creates left the bucket',
      perMinute: 20,
      steps: [{ create: 15 }, { read: 10 }],
      sent: [15, 5],
    },
    { name: 'reads alone stop at half the bucket', perMinute: 20, steps: [{ read: 30 }], sent: [10] },
    {
      name: 'creates after reads have half the bucket',
      perMinute: 20,
      steps: [{ read: 10 }, { create: 15 }],
      sent: [10, 10],
    },
    {
      name: 'creates, reads, creates',
      perMinute: 20,
      steps: [{ create: 5 }, { read: 20 }, { create: 20 }],
      sent: [5, 10, 5],
    },
  ])('$name (UPSTREAM_RATE_LIMIT_PER_MIN $perMinute)', async ({ perMinute, steps, sent }) => {
    const inner = new CountingProvider();
    const spent: string[] = [];
    const refused: string[] = [];
    const provider = new BudgetedProvider(inner, {
      ledger: ledger(),
      providerUrl: 'https://provider.test',
      perMinute,
      onSpend: (_m, purpose) => spent.push(purpose),
      onRefuse: (_m, purpose, reason) => refused.push(`${purpose}:${reason}`),
    });
    const m = merchant();
    const reached = () => inner.creates + inner.checks + inner.balances;
    const answered: number[] = [];
    let asked = 0;
    for (const step of steps) {
      const before = reached();
      const calls =
        'create' in step
          ? Array.from({ length: step.create }, (_, i) => provider.create(m, request(i)))
          : Array.from({ length: step.read }, (_, i) =>
              i % 2 === 0 ? provider.checkStatus(m, `x${i}`, 'reconcile') : provider.balance(m),
            );
      const answers = await Promise.all(calls.map(settled));
      asked += answers.length;
      expect(answers.filter((a) => a !== 'ok').every((a) => a === 'rate-limited')).toBe(true);
      expect(answers.filter((a) => a === 'ok')).toHaveLength(reached() - before);
      answered.push(reached() - before);
    }
    expect(answered).toEqual(sent);
    // What is spent and what is refused are told, by purpose, as the metrics count them.
    expect(spent).toHaveLength(reached());
    expect(spent.filter((p) => p === 'create')).toHaveLength(inner.creates);
    expect(refused).toHaveLength(asked - reached());
    expect(refused.every((r) => r.endsWith(':budget'))).toBe(true);
  });

  it('a read refused by both its own half and the shared bucket is told to wait for the later of the two', async () => {
    const provider = new BudgetedProvider(new CountingProvider(), {
      ledger: ledger(),
      providerUrl: 'https://provider.test',
      perMinute: 20,
    });
    const m = merchant();
    await Promise.all(Array.from({ length: 10 }, (_, i) => provider.checkStatus(m, `x${i}`, 'reconcile')));
    await Promise.all(Array.from({ length: 10 }, (_, i) => provider.create(m, request(i))));
    const refused = await provider.balance(m).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderError);
    // The shared bucket has a token again in 3 s, the reads' half (10 a minute) only in 6 s.
    expect((refused as ProviderError).details.retryAfter).toBeGreaterThan(3);
    expect((refused as ProviderError).details.retryAfter).toBeLessThanOrEqual(6);
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

  it("a send's check-status takes its create's token along: one ledger call for both, two tokens spent", async () => {
    const inner = new CountingProvider();
    const counted = ledger();
    const calls: string[] = [];
    const counting: BudgetLedger = {
      take: (...args) => (calls.push('take'), counted.take(...args)),
      takePair: (...args) => (calls.push('pair'), counted.takePair(...args)),
      pause: (...args) => counted.pause(...args),
      claim: (...args) => counted.claim(...args),
      close: () => counted.close(),
    };
    const provider = new BudgetedProvider(inner, {
      ledger: counting,
      providerUrl: 'https://provider.test',
      perMinute: 4,
    });
    const m = merchant();
    for (const i of [1, 2]) {
      expect(await settled(provider.checkStatus(m, `r${i}`, 'create'))).toBe('ok');
      expect(await settled(provider.create(m, request(i)))).toBe('ok');
    }
    expect(calls).toEqual(['pair', 'pair']);
    // Four tokens a minute, four spent: the next send's check is refused, and nothing more leaves.
    expect(await settled(provider.checkStatus(m, 'r3', 'create'))).toBe('rate-limited');
    expect(await settled(provider.create(m, request(3)))).toBe('rate-limited');
    expect([inner.checks, inner.creates]).toEqual([2, 2]);
  });

  it('a create whose check took its token is not sent once a 429 paused the key in between', async () => {
    const inner = new CountingProvider();
    const provider = new BudgetedProvider(inner, {
      ledger: ledger(),
      providerUrl: 'https://provider.test',
      perMinute: 100,
    });
    const m = merchant();
    expect(await settled(provider.checkStatus(m, 'r1', 'create'))).toBe('ok');
    inner.next429 = 30;
    expect(await settled(provider.create(m, request(9)))).toBe('rate-limited');
    inner.next429 = undefined;
    const sent = inner.creates;
    expect(await settled(provider.create(m, request(1)))).toBe('rate-limited');
    expect(inner.creates).toBe(sent);
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
