import { BudgetLedger, Take } from '../../src/upstream/provider.budget';
import { databasePerTest, Engine } from '../support/engines';

/** How many of `count` takes at once were taken. */
async function takenOf(ledger: BudgetLedger, key: string, perMinute: number, read: boolean, count: number) {
  const takes = await Promise.all(Array.from({ length: count }, () => ledger.take(key, perMinute, read)));
  return takes.filter((t) => t.taken).length;
}

/**
 * A refusal's wait. The clock runs on between calls (PostgreSQL's is the server's), so a wait is
 * checked against its nominal value less a generous slack for a slow machine, never more.
 */
const waited = (take: Take) => (take.taken ? 0 : take.waitMs);

/**
 * What every BudgetLedger promises, on a database of each test's own of `engine`. No case moves
 * time: PostgreSQL counts on the server's clock, so each reads the bucket as it is now.
 */
export function budgetLedgerContract(engine: Engine): void {
  const db = databasePerTest(engine);
  let ledger: BudgetLedger;
  beforeEach(() => {
    ledger = db().budget();
  });

  it('lets creates spend the whole bucket, then says how long until the next token', async () => {
    expect(await takenOf(ledger, 'k', 10, false, 15)).toBe(10);
    const refused = await ledger.take('k', 10, false);
    expect(refused).toMatchObject({ taken: false, paused: false });
    // 10 a minute: a token every 6 s.
    expect(waited(refused)).toBeGreaterThan(3000);
    expect(waited(refused)).toBeLessThanOrEqual(6000);
  });

  it('never lets reads take more than half the bucket; creates keep the rest', async () => {
    expect(await takenOf(ledger, 'k', 20, true, 15)).toBe(10);
    const read = await ledger.take('k', 20, true);
    // The reads' half refills at 10 a minute.
    expect(waited(read)).toBeGreaterThan(3000);
    expect(waited(read)).toBeLessThanOrEqual(6000);
    expect(await takenOf(ledger, 'k', 20, false, 15)).toBe(10);
  });

  it('lets reads have only what creates left', async () => {
    expect(await takenOf(ledger, 'k', 20, false, 15)).toBe(15);
    expect(await takenOf(ledger, 'k', 20, true, 10)).toBe(5);
  });

  it('tells a read to wait for whichever of its two buckets refills last', async () => {
    expect(await takenOf(ledger, 'k', 20, true, 10)).toBe(10);
    expect(await takenOf(ledger, 'k', 20, false, 15)).toBe(10);
    const read = await ledger.take('k', 20, true);
    const create = await ledger.take('k', 20, false);
    // Both empty: the shared bucket has a token again in 3 s, the reads' half in 6 s.
    expect(waited(create)).toBeGreaterThan(0);
    expect(waited(create)).toBeLessThanOrEqual(3000);
    expect(waited(read)).toBeLessThanOrEqual(6000);
    expect(waited(read) - waited(create)).toBeGreaterThan(2000);
  });

  it('takes a pair in one step: both while two are left, the first alone when one is, neither when none', async () => {
    expect(await takenOf(ledger, 'k', 10, false, 7)).toBe(7);
    expect(await ledger.takePair('k', 10)).toEqual({ first: { taken: true }, second: true });
    expect(await ledger.takePair('k', 10)).toEqual({ first: { taken: true }, second: false });
    const refused = await ledger.takePair('k', 10);
    expect(refused).toMatchObject({ first: { taken: false, paused: false }, second: false });
    expect(await ledger.take('k', 10, false)).toMatchObject({ taken: false });
  });

  it('takes no pair from a paused key, and a pair without counting when there is no budget', async () => {
    expect(await ledger.takePair('free', 0)).toEqual({ first: { taken: true }, second: true });
    await ledger.pause('held', 30_000);
    expect(await ledger.takePair('held', 0)).toMatchObject({ first: { taken: false, paused: true }, second: false });
  });

  it('keeps keys apart', async () => {
    expect(await takenOf(ledger, 'k1', 5, false, 5)).toBe(5);
    expect(await ledger.take('k1', 5, false)).toMatchObject({ taken: false });
    expect(await ledger.take('k2', 5, true)).toEqual({ taken: true });
  });

  it('takes without counting when there is no budget (0 a minute)', async () => {
    expect(await takenOf(ledger, 'k', 0, true, 50)).toBe(50);
  });

  it("holds a key after a provider's 429 for as long as it said, whatever the budget; a shorter pause does not shorten it", async () => {
    await ledger.pause('k', 30_000);
    await ledger.pause('k', 1000);
    for (const [perMinute, read] of [
      [100, false],
      [100, true],
      [0, false],
    ] as const) {
      const take = await ledger.take('k', perMinute, read);
      expect(take).toMatchObject({ taken: false, paused: true });
      expect(waited(take)).toBeGreaterThan(25_000);
      expect(waited(take)).toBeLessThanOrEqual(30_000);
    }
    expect(await ledger.take('other', 100, false)).toEqual({ taken: true });
  });

  it('gives a claim to its first caller only, until it ends', async () => {
    const claims = await Promise.all(Array.from({ length: 10 }, () => ledger.claim('c', 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await ledger.claim('c', 60_000)).toBe(false);
    expect(await ledger.claim('other', 60_000)).toBe(true);
    // A claim of no length has ended at once: the next caller gets one.
    expect(await ledger.claim('brief', 0)).toBe(true);
    expect(await ledger.claim('brief', 60_000)).toBe(true);
    expect(await ledger.claim('brief', 60_000)).toBe(false);
  });

  it('shares one budget, its pauses and its claims between instances, as between replicas', async () => {
    const other = db().budget();
    const takes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? ledger : other).take('k', 10, false)),
    );
    expect(takes.filter((t) => t.taken)).toHaveLength(10);
    await ledger.pause('p', 30_000);
    expect(await other.take('p', 100, false)).toMatchObject({ taken: false, paused: true });
    expect(await ledger.claim('c', 60_000)).toBe(true);
    expect(await other.claim('c', 60_000)).toBe(false);
  });
}
