import { randomUUID } from 'node:crypto';
import { HistoryPage } from '../../src/disbursements/disbursement.ports';
import { Disbursement } from '../../src/disbursements/disbursement.model';
import { DisbursementStore } from '../../src/disbursements/disbursement.ports';

export interface StoreUnderTest {
  store: DisbursementStore;
  /** Closes the store and removes what it wrote. */
  cleanup(): Promise<void>;
}

export function record(overrides: Partial<Disbursement> = {}): Disbursement {
  return {
    merchantId: 'merchant-1',
    referenceId: `ref-${randomUUID()}`,
    channel: 'MOBILE_MONEY',
    sending: false,
    status: 'PENDING',
    paymentType: 'OPERATOR_A_MONEY',
    amount: '150.75',
    currency: 'ZMW',
    accountNumber: '260971234567',
    updatedAt: '2026-01-01T00:00:00.000Z',
    version: 1,
    history: [{ status: 'PENDING', source: 'CREATE', at: '2026-01-01T00:00:00.000Z' }],
    deliveryIds: [],
    checkAttempts: 0,
    ...overrides,
  };
}

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const refs = (records: Disbursement[]) => records.map((r) => r.referenceId);

/** What every DisbursementStore promises; `make` gives each test a store of its own. */
export function storeContract(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(`${name} store contract`, () => {
    let store: DisbursementStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await make());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe('insertIfAbsent and get', () => {
      it('stores a new record and answers undefined', async () => {
        const r = record();
        expect(await store.get(r.merchantId, r.referenceId)).toBeUndefined();
        expect(await store.insertIfAbsent(r)).toBeUndefined();
        expect(await store.get(r.merchantId, r.referenceId)).toEqual(r);
      });

      it('returns the existing record and does not overwrite it or its due entry', async () => {
        const first = record({ amount: '1.00' });
        await store.insertIfAbsent(first);
        const second = { ...first, amount: '2.00', nextCheckAt: at(0) };
        expect(await store.insertIfAbsent(second)).toEqual(first);
        expect(await store.get(first.merchantId, first.referenceId)).toEqual(first);
        expect(await store.due(new Date(at(1)), 10)).toEqual([]);
      });

      it('gives only one of many concurrent claims of a key', async () => {
        const referenceId = 'claimed-once';
        const claims = Array.from({ length: 20 }, (_, i) => record({ referenceId, amount: `${i + 1}.00` }));
        const answers = await Promise.all(claims.map((c) => store.insertIfAbsent(c)));
        const winners = claims.filter((_, i) => answers[i] === undefined);
        expect(winners).toHaveLength(1);
        for (const answer of answers) if (answer) expect(answer).toEqual(winners[0]);
        expect(await store.get('merchant-1', referenceId)).toEqual(winners[0]);
      });

      it('keeps merchants apart, even with ids that contain the separator', async () => {
        const records = [
          record({ merchantId: 'a:b', referenceId: 'c' }),
          record({ merchantId: 'a', referenceId: 'b:c' }),
          record({ merchantId: 'a%3Ab', referenceId: 'c' }),
          record({ merchantId: 'merchant-2', referenceId: 'c' }),
        ];
        for (const r of records) expect(await store.insertIfAbsent(r)).toBeUndefined();
        for (const r of records) expect(await store.get(r.merchantId, r.referenceId)).toEqual(r);
        expect(await store.get('a', 'b')).toBeUndefined();
      });

      it('keeps every field as JSON, history and all', async () => {
        const r = record({
          request: {
            channel: 'MOBILE_MONEY',
            referenceId: 'x',
            amount: '150.75',
            currency: 'ZMW',
            accountNumber: '260971234567',
          },
          fingerprint: 'f'.repeat(64),
          sending: true,
          narration: 'Zikomo — thank you',
          deliveryIds: ['msg_1'],
          relay: {
            url: 'https://client.example/cb',
            delivered: false,
            gaveUp: false,
            attempts: [{ at: at(0), status: 500 }],
          },
        });
        await store.insertIfAbsent(r);
        expect(await store.get(r.merchantId, r.referenceId)).toEqual(r);
      });
    });

    describe('getMany', () => {
      it('answers in the order asked, with undefined for what is missing, in one read', async () => {
        const [a, b] = [record(), record()];
        await store.insertIfAbsent(a);
        await store.insertIfAbsent(b);
        const before = store.reads;
        expect(await store.getMany('merchant-1', [b.referenceId, 'missing', a.referenceId, b.referenceId])).toEqual([
          b,
          undefined,
          a,
          b,
        ]);
        expect(store.reads).toBe(before + 1);
      });

      it("does not answer with another merchant's records", async () => {
        const r = record();
        await store.insertIfAbsent(r);
        expect(await store.getMany('merchant-2', [r.referenceId])).toEqual([undefined]);
      });

      it('answers an empty list for no ids', async () => {
        expect(await store.getMany('merchant-1', [])).toEqual([]);
      });
    });

    describe('reads', () => {
      it('counts one per get, getMany and due, and nothing for writes', async () => {
        const r = record();
        const start = store.reads;
        await store.insertIfAbsent(r);
        await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, version: c.version + 1 }));
        await store.remove(r.merchantId, r.referenceId, () => false);
        expect(store.reads).toBe(start);
        await store.get(r.merchantId, r.referenceId);
        await store.getMany(r.merchantId, [r.referenceId, 'other']);
        await store.due(new Date(), 10);
        expect(store.reads).toBe(start + 3);
      });
    });

    describe('update', () => {
      it('stores the changed record and returns it', async () => {
        const r = record();
        await store.insertIfAbsent(r);
        const changed = await store.update(r.merchantId, r.referenceId, (c) => ({
          ...c,
          status: 'SUCCESSFUL',
          version: c.version + 1,
        }));
        expect(changed).toEqual({ ...r, status: 'SUCCESSFUL', version: 2 });
        expect(await store.get(r.merchantId, r.referenceId)).toEqual(changed);
      });

      it('leaves the record when the change returns undefined, and returns it as stored', async () => {
        const r = record();
        await store.insertIfAbsent(r);
        expect(await store.update(r.merchantId, r.referenceId, () => undefined)).toEqual(r);
        expect(await store.get(r.merchantId, r.referenceId)).toEqual(r);
      });

      it('returns undefined for a missing record without calling the change', async () => {
        const change = jest.fn((c: Disbursement) => c);
        expect(await store.update('merchant-1', 'missing', change)).toBeUndefined();
        expect(change).not.toHaveBeenCalled();
        expect(await store.get('merchant-1', 'missing')).toBeUndefined();
      });

      it('loses no change among 50 concurrent updates of one record', async () => {
        const r = record({ version: 7 });
        await store.insertIfAbsent(r);
        await Promise.all(
          Array.from({ length: 50 }, () =>
            store.update(r.merchantId, r.referenceId, (c) => ({ ...c, version: c.version + 1 })),
          ),
        );
        expect((await store.get(r.merchantId, r.referenceId))?.version).toBe(57);
      });

      it('gives a conditional change to only one of concurrent callers', async () => {
        const r = record({ nextCheckAt: at(0) });
        await store.insertIfAbsent(r);
        const leases = Array.from({ length: 10 }, (_, i) => at(60_000 + i));
        const stored = await Promise.all(
          leases.map((lease) =>
            store.update(r.merchantId, r.referenceId, (c) =>
              c.nextCheckAt === r.nextCheckAt ? { ...c, nextCheckAt: lease } : undefined,
            ),
          ),
        );
        // A caller holds the lease when the record it gets back carries its own.
        const holders = leases.filter((lease, i) => stored[i]?.nextCheckAt === lease);
        expect(holders).toHaveLength(1);
        expect((await store.get(r.merchantId, r.referenceId))?.nextCheckAt).toBe(holders[0]);
      });
    });

    describe('remove', () => {
      it('removes the record when the expectation holds for it', async () => {
        const r = record({ sending: true });
        await store.insertIfAbsent(r);
        await store.remove(r.merchantId, r.referenceId, (c) => c.sending);
        expect(await store.get(r.merchantId, r.referenceId)).toBeUndefined();
        expect(await store.insertIfAbsent(r)).toBeUndefined();
      });

      it('keeps the record when the expectation does not hold', async () => {
        const r = record({ sending: false });
        await store.insertIfAbsent(r);
        await store.remove(r.merchantId, r.referenceId, (c) => c.sending);
        expect(await store.get(r.merchantId, r.referenceId)).toEqual(r);
      });

      it('does nothing for a missing record', async () => {
        const expected = jest.fn(() => true);
        await expect(store.remove('merchant-1', 'missing', expected)).resolves.toBeUndefined();
        expect(expected).not.toHaveBeenCalled();
      });
    });

    describe('due', () => {
      it('answers records at or before now, of every merchant, earliest first, up to the limit', async () => {
        const late = record({ nextCheckAt: at(3000) });
        const early = record({ merchantId: 'merchant-2', nextCheckAt: at(1000) });
        const onTime = record({ nextCheckAt: at(2000) });
        const future = record({ nextCheckAt: at(2001) });
        const settled = record({ status: 'SUCCESSFUL' });
        for (const r of [late, early, onTime, future, settled]) await store.insertIfAbsent(r);
        expect(refs(await store.due(new Date(at(2000)), 10))).toEqual(refs([early, onTime]));
        expect(refs(await store.due(new Date(at(5000)), 10))).toEqual(refs([early, onTime, future, late]));
        expect(refs(await store.due(new Date(at(5000)), 2))).toEqual(refs([early, onTime]));
        expect(await store.due(new Date(at(999)), 10)).toEqual([]);
      });

      it('answers the records as stored', async () => {
        const r = record({ nextCheckAt: at(0) });
        await store.insertIfAbsent(r);
        expect(await store.due(new Date(at(0)), 10)).toEqual([r]);
      });

      it('follows nextCheckAt as updates set, move and unset it', async () => {
        const r = record();
        await store.insertIfAbsent(r);
        const now = new Date(at(10_000));
        expect(await store.due(now, 10)).toEqual([]);
        const set = await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, nextCheckAt: at(5000) }));
        expect(await store.due(now, 10)).toEqual([set]);
        await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, nextCheckAt: at(20_000) }));
        expect(await store.due(now, 10)).toEqual([]);
        const back = await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, nextCheckAt: at(0) }));
        expect(await store.due(now, 10)).toEqual([back]);
        await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, nextCheckAt: undefined }));
        expect(await store.due(new Date(at(1e9)), 10)).toEqual([]);
      });

      it('forgets a removed record', async () => {
        const r = record({ nextCheckAt: at(0), sending: true });
        await store.insertIfAbsent(r);
        await store.remove(r.merchantId, r.referenceId, () => true);
        expect(await store.due(new Date(at(1000)), 10)).toEqual([]);
      });

      it('answers nothing for a limit below one', async () => {
        await store.insertIfAbsent(record({ nextCheckAt: at(0) }));
        expect(await store.due(new Date(at(1000)), 0)).toEqual([]);
      });
    });

    describe('history', () => {
      const all = { limit: 100, filter: {} };
      const ids = (page: HistoryPage) => page.entries.map((e) => e.referenceId);
      /** Stored first at `ms`: its place in the history. */
      const claimedAt = (referenceId: string, ms: number, overrides: Partial<Disbursement> = {}) =>
        store.insertIfAbsent(record({ referenceId, updatedAt: at(ms), ...overrides }));

      it('lists newest first by first write, ties by referenceId, with records as stored, and counts them', async () => {
        await claimedAt('a', 10);
        await claimedAt('c', 20);
        await claimedAt('b', 20);
        await claimedAt('d', 5);
        const page = await store.history('merchant-1', all);
        expect(ids(page)).toEqual(['c', 'b', 'a', 'd']);
        expect(page.entries[0]).toEqual({
          at: Date.parse(at(20)),
          referenceId: 'c',
          record: await store.get('merchant-1', 'c'),
        });
        expect(page).toMatchObject({ hasMore: false, totalCount: 4 });
      });

      it('pages from a cursor without skipping or repeating, whatever arrives or changes meanwhile', async () => {
        for (let i = 0; i < 9; i += 1) await claimedAt(`r${i}`, Math.floor(i / 3));
        const first = await store.history('merchant-1', { ...all, limit: 4 });
        expect(ids(first)).toEqual(['r8', 'r7', 'r6', 'r5']);
        expect(first.hasMore).toBe(true);
        await claimedAt('later', 100);
        await store.update('merchant-1', 'r4', (r) => ({ ...r, status: 'SUCCESSFUL', updatedAt: at(200), version: 2 }));
        const second = await store.history('merchant-1', { ...all, limit: 4, after: first.endPosition });
        expect(ids(second)).toEqual(['r4', 'r3', 'r2', 'r1']);
        expect(second.entries[0].record.status).toBe('SUCCESSFUL');
        const third = await store.history('merchant-1', { ...all, limit: 4, after: second.endPosition });
        expect(ids(third)).toEqual(['r0']);
        expect(third.hasMore).toBe(false);
      });

      it('keeps merchants apart, and drops removed records', async () => {
        await claimedAt('mine', 1);
        await claimedAt('gone', 2);
        await claimedAt('theirs', 3, { merchantId: 'merchant-2' });
        await store.remove('merchant-1', 'gone', () => true);
        expect(ids(await store.history('merchant-1', all))).toEqual(['mine']);
        expect(ids(await store.history('merchant-2', all))).toEqual(['theirs']);
        expect(ids(await store.history('merchant-3', all))).toEqual([]);
      });

      it('filters by time (counted) and by status, channel and prefix (not counted)', async () => {
        await claimedAt('x-1', 1, { status: 'FAILED' });
        await claimedAt('x-2', 2, { status: 'PENDING', channel: 'BANK' });
        await claimedAt('y-3', 3, { status: 'FAILED' });
        await claimedAt('x-4', 4, { status: 'FAILED' });
        const window = { createdFrom: Date.parse(at(2)), createdTo: Date.parse(at(3)) };
        expect(await store.history('merchant-1', { limit: 10, filter: window })).toMatchObject({
          totalCount: 2,
          hasMore: false,
        });
        expect(ids(await store.history('merchant-1', { limit: 10, filter: window }))).toEqual(['y-3', 'x-2']);
        const failedX = await store.history('merchant-1', {
          limit: 1,
          filter: { statuses: ['FAILED'], referenceIdPrefix: 'x-' },
        });
        expect(ids(failedX)).toEqual(['x-4']);
        expect(failedX.totalCount).toBeUndefined();
        const next = await store.history('merchant-1', {
          limit: 1,
          after: failedX.endPosition,
          filter: { statuses: ['FAILED'], referenceIdPrefix: 'x-' },
        });
        expect(ids(next)).toEqual(['x-1']);
        expect(ids(await store.history('merchant-1', { limit: 10, filter: { channel: 'BANK' } }))).toEqual(['x-2']);
      });
    });

    describe('daily limits: insertReserving, reserved, and the release on FAILED, CANCELLED or removal', () => {
      const DAY = '2026-01-01';
      const held = (actorId: string, minor: number, over: Partial<Disbursement> = {}) =>
        record({ status: 'PENDING', reservation: { day: DAY, currency: 'ZMW', actorId, minor }, ...over });
      const totals = (actorId = 'alice') => store.reserved('merchant-1', DAY, 'ZMW', actorId);

      it.each([
        ['under both caps', 3000, { dailyMinor: 10_000, userMinor: 5000 }, undefined],
        [
          'past the merchant cap',
          9000,
          { dailyMinor: 10_000, userMinor: 50_000 },
          { limit: 'dailyLimit', remainingMinor: 8000 },
        ],
        [
          'past the actor cap',
          4000,
          { dailyMinor: 50_000, userMinor: 5000 },
          { limit: 'userDailyLimit', remainingMinor: 3000 },
        ],
        ['exactly at the cap', 8000, { dailyMinor: 10_000 }, undefined],
      ] as const)('%s', async (_name, minor, caps, refused) => {
        await store.insertReserving(held('alice', 2000), caps);
        const r = held('alice', minor);
        const outcome = await store.insertReserving(r, caps);
        expect(outcome.refused).toEqual(refused);
        expect(await store.get('merchant-1', r.referenceId)).toEqual(refused ? undefined : r);
        expect(await totals()).toEqual(
          refused ? { merchant: 2000, actor: 2000 } : { merchant: 2000 + minor, actor: 2000 + minor },
        );
      });

      it('answers an existing record without reserving again', async () => {
        const r = held('alice', 1000);
        await store.insertReserving(r, { dailyMinor: 1500 });
        expect(await store.insertReserving(r, { dailyMinor: 1500 })).toEqual({ existing: r });
        expect(await totals()).toEqual({ merchant: 1000, actor: 1000 });
      });

      it('never passes a cap, however many insert at once', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.insertReserving(held(`actor-${i % 2}`, 1000), { dailyMinor: 7000 }),
          ),
        );
        expect(outcomes.filter((o) => !o.refused)).toHaveLength(7);
        expect(outcomes.filter((o) => o.refused).map((o) => o.refused)).toEqual(
          Array(13).fill({ limit: 'dailyLimit', remainingMinor: 0 }),
        );
        expect((await totals()).merchant).toBe(7000);
      });

      it('gives the amount back once when the record ends FAILED or CANCELLED, and when it is removed', async () => {
        const [failed, cancelled, removed, kept] = [
          held('alice', 100),
          held('alice', 200),
          held('alice', 400),
          held('alice', 800),
        ];
        for (const r of [failed, cancelled, removed, kept]) await store.insertReserving(r, {});
        expect(await totals()).toEqual({ merchant: 1500, actor: 1500 });
        const stored = await store.update('merchant-1', failed.referenceId, (c) => ({ ...c, status: 'FAILED' }));
        expect(stored?.reservation?.released).toBe(true);
        // A later write of the final record gives nothing back again.
        await store.update('merchant-1', failed.referenceId, (c) => ({ ...c, message: 'again' }));
        await store.update('merchant-1', cancelled.referenceId, (c) => ({ ...c, status: 'CANCELLED' }));
        await store.update('merchant-1', kept.referenceId, (c) => ({ ...c, status: 'SUCCESSFUL' }));
        await store.remove('merchant-1', removed.referenceId, () => true);
        expect(await totals()).toEqual({ merchant: 800, actor: 800 });
      });
    });

    it('is healthy', async () => {
      expect(await store.healthy()).toBe(true);
    });
  });
}
