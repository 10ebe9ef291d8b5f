import { AuditAction, AuditDraft, AuditEntry, auditEvent, contentMac } from '../../src/disbursements/audit.entry';
import { verifyChain } from '../../src/disbursements/audit.verify';
import { BankRequest, Disbursement, DisbursementStatus } from '../../src/disbursements/disbursement.model';
import { HistoryPage, HistoryQuery, START_POSITION } from '../../src/disbursements/disbursement.ports';
import { databasePerTest, Engine, StoreUnderTest, StoreSettings } from '../support/engines';
import { TEST_CHAIN_KEY, TEST_ENTRY_KEY } from '../support/chain-key';
import { bump, record, shownRecord, watching } from './store.fixtures';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const refs = (records: Disbursement[]) => records.map((r) => r.referenceId);

/** What every DisbursementStore promises, on a database of each test's own of `engine`. */
export function storeContract(engine: Engine): void {
  const db = databasePerTest(engine);
  let store: StoreUnderTest;
  beforeEach(() => {
    store = db().store();
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
      const second = { ...first, amount: '2.00', due: { kind: 'RECHECK' as const, at: at(0) } };
      expect(await store.insertIfAbsent(second)).toEqual(first);
      expect(await store.get(first.merchantId, first.referenceId)).toEqual(first);
      expect(await store.due(new Date(at(1)), 10)).toEqual([]);
    });

    it('answers records no caller can change: the next write starts from what is stored', async () => {
      const r = record({ amount: '1.00' });
      await store.insertIfAbsent(r);
      const read = (await store.get(r.merchantId, r.referenceId)) as Disbursement;
      expect(() => {
        (read as { amount: string }).amount = '999.00';
      }).toThrow(TypeError);
      expect(() => read.history.push({ status: 'SUCCESSFUL', source: 'CALLBACK', at: at(0) })).toThrow(TypeError);
      const seen: string[] = [];
      await store.update(r.merchantId, r.referenceId, (current) => {
        seen.push(current.amount);
        return { ...current, message: 'next' };
      });
      expect(seen).toEqual(['1.00']);
      expect(await store.get(r.merchantId, r.referenceId)).toMatchObject({ amount: '1.00', history: r.history });
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

    it('keeps merchants apart, even with ids that contain a separator', async () => {
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
        narration: 'Zikomo — thank you 🙏',
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
      const before = store.databaseCalls;
      expect(await store.getMany('merchant-1', [b.referenceId, 'missing', a.referenceId, b.referenceId])).toEqual([
        b,
        undefined,
        a,
        b,
      ]);
      expect(store.databaseCalls).toBe(before + 1);
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

  describe('update', () => {
    it('stores the changed record and returns it', async () => {
      const r = record();
      await store.insertIfAbsent(r);
      const changed = await store.update(r.merchantId, r.referenceId, bump({ status: 'SUCCESSFUL' }));
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
      await Promise.all(Array.from({ length: 50 }, () => store.update(r.merchantId, r.referenceId, bump())));
      expect((await store.get(r.merchantId, r.referenceId))?.version).toBe(57);
    });

    it('gives a conditional change to only one of concurrent callers', async () => {
      const r = record({ due: { kind: 'RECHECK', at: at(0) } });
      await store.insertIfAbsent(r);
      const leases = Array.from({ length: 10 }, (_, i) => at(60_000 + i));
      const stored = await Promise.all(
        leases.map((lease) =>
          store.update(r.merchantId, r.referenceId, (c) =>
            c.leasedUntil === r.leasedUntil ? { ...c, leasedUntil: lease } : undefined,
          ),
        ),
      );
      // A caller holds the lease when the record it gets back carries its own.
      const holders = leases.filter((lease, i) => stored[i]?.leasedUntil === lease);
      expect(holders).toHaveLength(1);
      expect((await store.get(r.merchantId, r.referenceId))?.leasedUntil).toBe(holders[0]);
    });
  });

  describe('relay: the write that makes a payout final queues its relay job in the same step', () => {
    const HOOK = 'https://client.example/hook';
    const bank = (callbackUrl?: string) => {
      const base = record({ channel: 'BANK', paymentType: 'BANK' });
      const request: BankRequest = {
        channel: 'BANK',
        referenceId: base.referenceId,
        amount: base.amount,
        currency: base.currency,
        narration: 'Invoice 7',
        accountNumber: '0012345678',
        swiftCode: 'ZNCOZMLU',
        firstName: 'Mwila',
        lastName: 'Banda',
        accountHolderName: 'Mwila Banda',
        phoneNumber: '260971234567',
        ...(callbackUrl !== undefined && { callbackUrl }),
      };
      return { ...base, request };
    };
    const queued = () =>
      db()
        .relayQueue()
        .lease(new Date(Date.now() + 60_000), 100, new Date(Date.now() + 120_000));

    it('queues the final record for its callbackUrl, due at once', async () => {
      const r = bank(HOOK);
      await store.insertIfAbsent(r);
      await store.update(r.merchantId, r.referenceId, bump({ status: 'PENDING' }));
      expect(await queued()).toEqual([]);
      await store.update(r.merchantId, r.referenceId, bump({ status: 'SUCCESSFUL' }));
      const jobs = await db()
        .relayQueue()
        .lease(new Date(), 100, new Date(Date.now() + 60_000));
      expect(jobs).toEqual([
        expect.objectContaining({ merchantId: r.merchantId, referenceId: r.referenceId, url: HOOK, attempts: 0 }),
      ]);
      expect(JSON.parse(jobs[0].body)).toMatchObject({
        type: 'disbursement.final',
        data: { referenceId: r.referenceId, status: 'SUCCESSFUL' },
      });
    });

    it('queues nothing without a callbackUrl, for a write that is not published, or once already final', async () => {
      const plain = bank();
      await store.insertIfAbsent(plain);
      await store.update(plain.merchantId, plain.referenceId, bump({ status: 'FAILED' }));
      const quiet = bank(HOOK);
      await store.insertIfAbsent(quiet);
      await store.update(quiet.merchantId, quiet.referenceId, (c) => ({ ...c, status: 'SUCCESSFUL' }));
      const twice = bank(HOOK);
      await store.insertIfAbsent(twice);
      await store.update(twice.merchantId, twice.referenceId, bump({ status: 'SUCCESSFUL' }));
      expect((await queued()).map((j) => j.referenceId)).toEqual([twice.referenceId]);
      await store.update(twice.merchantId, twice.referenceId, bump({ status: 'FAILED' }));
      expect(await queued()).toEqual([]);
    });

    it('queues one job, of the status stored, among concurrent writes racing to make it final', async () => {
      const r = bank(HOOK);
      await store.insertIfAbsent(r);
      const statuses: DisbursementStatus[] = ['SUCCESSFUL', 'FAILED', 'SUCCESSFUL', 'FAILED', 'SUCCESSFUL', 'FAILED'];
      await Promise.all(
        statuses.map((status) =>
          db()
            .store()
            .update(r.merchantId, r.referenceId, (c) => (c.status === 'PENDING' ? bump({ status })(c) : undefined)),
        ),
      );
      const stored = await store.get(r.merchantId, r.referenceId);
      const jobs = await queued();
      expect(jobs).toHaveLength(1);
      expect(JSON.parse(jobs[0].body)).toMatchObject({ data: { status: stored?.status } });
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
      const late = record({ due: { kind: 'RECHECK', at: at(3000) } });
      const early = record({ merchantId: 'merchant-2', due: { kind: 'RECHECK', at: at(1000) } });
      const onTime = record({ due: { kind: 'RECHECK', at: at(2000) } });
      const future = record({ due: { kind: 'RECHECK', at: at(2001) } });
      const settled = record({ status: 'SUCCESSFUL' });
      for (const r of [late, early, onTime, future, settled]) await store.insertIfAbsent(r);
      expect(refs(await store.due(new Date(at(2000)), 10))).toEqual(refs([early, onTime]));
      expect(refs(await store.due(new Date(at(5000)), 10))).toEqual(refs([early, onTime, future, late]));
      expect(refs(await store.due(new Date(at(5000)), 2))).toEqual(refs([early, onTime]));
      expect(await store.due(new Date(at(999)), 10)).toEqual([]);
    });

    it('answers the records as stored', async () => {
      const r = record({ due: { kind: 'RECHECK', at: at(0) } });
      await store.insertIfAbsent(r);
      expect(await store.due(new Date(at(0)), 10)).toEqual([r]);
    });

    it('leaves out a record a replica leased until its lease has passed, and keeps its kind', async () => {
      const r = record({ due: { kind: 'SEND', at: at(0) } });
      await store.insertIfAbsent(r);
      const held = await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, leasedUntil: at(30_000) }));
      expect(await store.due(new Date(at(29_999)), 10)).toEqual([]);
      expect(await store.due(new Date(at(30_000)), 10)).toEqual([held]);
      expect(held?.due).toEqual({ kind: 'SEND', at: at(0) });
    });

    it('follows what is due as updates set, move and unset it', async () => {
      const r = record();
      await store.insertIfAbsent(r);
      const now = new Date(at(10_000));
      expect(await store.due(now, 10)).toEqual([]);
      const set = await store.update(r.merchantId, r.referenceId, (c) => ({
        ...c,
        due: { kind: 'RECHECK', at: at(5000) },
      }));
      expect(await store.due(now, 10)).toEqual([set]);
      await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, due: { kind: 'RECHECK', at: at(20_000) } }));
      expect(await store.due(now, 10)).toEqual([]);
      const back = await store.update(r.merchantId, r.referenceId, (c) => ({
        ...c,
        due: { kind: 'RECHECK', at: at(0) },
      }));
      expect(await store.due(now, 10)).toEqual([back]);
      await store.update(r.merchantId, r.referenceId, (c) => ({ ...c, due: undefined }));
      expect(await store.due(new Date(at(1e9)), 10)).toEqual([]);
    });

    it('forgets a removed record', async () => {
      const r = record({ due: { kind: 'RECHECK', at: at(0) }, sending: true });
      await store.insertIfAbsent(r);
      await store.remove(r.merchantId, r.referenceId, () => true);
      expect(await store.due(new Date(at(1000)), 10)).toEqual([]);
    });

    it('answers nothing for a limit below one', async () => {
      await store.insertIfAbsent(record({ due: { kind: 'RECHECK', at: at(0) } }));
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
      expect(first).toMatchObject({ hasMore: true, totalCount: 9 });
      await claimedAt('later', 100);
      await store.update('merchant-1', 'r4', bump({ status: 'SUCCESSFUL', updatedAt: at(200) }));
      const second = await store.history('merchant-1', { ...all, limit: 4, after: first.endPosition });
      expect(ids(second)).toEqual(['r4', 'r3', 'r2', 'r1']);
      expect(second.entries[0].record.status).toBe('SUCCESSFUL');
      expect(second.totalCount).toBe(10);
      const third = await store.history('merchant-1', { ...all, limit: 4, after: second.endPosition });
      expect(ids(third)).toEqual(['r0']);
      expect(third.hasMore).toBe(false);
      expect(third.endPosition).toEqual({ at: Date.parse(at(0)), referenceId: 'r0' });
    });

    it('keeps merchants apart, and drops removed records', async () => {
      await claimedAt('mine', 1);
      await claimedAt('gone', 2);
      await claimedAt('theirs', 3, { merchantId: 'merchant-2' });
      await store.remove('merchant-1', 'gone', () => true);
      expect(await store.history('merchant-1', all)).toMatchObject({ totalCount: 1 });
      expect(ids(await store.history('merchant-1', all))).toEqual(['mine']);
      expect(ids(await store.history('merchant-2', all))).toEqual(['theirs']);
      expect(await store.history('merchant-3', all)).toEqual({ entries: [], hasMore: false, totalCount: 0 });
    });

    it('filters by time, status, channel and exact prefix, alone or together, counting exactly what matches', async () => {
      await claimedAt('x-1', 1, { status: 'FAILED' });
      await claimedAt('x-2', 2, { status: 'PENDING', channel: 'BANK' });
      await claimedAt('y-3', 3, { status: 'FAILED' });
      await claimedAt('x-4', 4, { status: 'FAILED' });
      await claimedAt('x_5', 5, { status: 'SUCCESSFUL' });
      await claimedAt('X-6', 6, { status: 'FAILED' });
      const page = (query: Partial<HistoryQuery>) => store.history('merchant-1', { limit: 10, filter: {}, ...query });
      const shown = async (query: Partial<HistoryQuery>) => {
        const { entries, totalCount, hasMore } = await page(query);
        return { ids: entries.map((e) => e.referenceId), totalCount, hasMore };
      };

      const window = { createdFrom: Date.parse(at(2)), createdTo: Date.parse(at(3)) };
      expect(await shown({ filter: window })).toEqual({ ids: ['y-3', 'x-2'], totalCount: 2, hasMore: false });
      expect(await shown({ filter: { channel: 'BANK' } })).toEqual({ ids: ['x-2'], totalCount: 1, hasMore: false });
      expect(await shown({ filter: { statuses: ['FAILED', 'SUCCESSFUL'] } })).toMatchObject({ totalCount: 5 });
      // A prefix matches the start exactly: `_` is no wildcard, and case counts.
      expect(await shown({ filter: { referenceIdPrefix: 'x_' } })).toMatchObject({ ids: ['x_5'], totalCount: 1 });
      expect(await shown({ filter: { referenceIdPrefix: 'x' } })).toMatchObject({
        ids: ['x_5', 'x-4', 'x-2', 'x-1'],
        totalCount: 4,
      });

      const failedX = { statuses: ['FAILED'] as DisbursementStatus[], referenceIdPrefix: 'x-' };
      const first = await page({ limit: 1, filter: failedX });
      expect(ids(first)).toEqual(['x-4']);
      expect(first).toMatchObject({ hasMore: true, totalCount: 2 });
      const next = await page({ limit: 1, after: first.endPosition, filter: failedX });
      expect(ids(next)).toEqual(['x-1']);
      expect(next).toMatchObject({ hasMore: false, totalCount: 2 });
      expect(
        await shown({
          filter: { ...failedX, channel: 'MOBILE_MONEY', createdFrom: Date.parse(at(2)), createdTo: Date.parse(at(6)) },
        }),
      ).toEqual({ ids: ['x-4'], totalCount: 1, hasMore: false });
    });
  });

  describe('publishing: what is logged is what every watcher hears', () => {
    it('tells the merchant watchers exactly the logged changes, once each, in the order logged', async () => {
      const events = db().events();
      const watcher = watching(events.watchMerchant('merchant-1'));
      await events.merchantListening('merchant-1');
      const [shown, claim] = [shownRecord(), record()];
      const held = shownRecord({ reservation: { day: '2026-01-01', currency: 'ZMW', actorId: 'alice', minor: 100 } });

      await store.insertIfAbsent(shown); // shown on insert: logged
      await store.insertIfAbsent(claim); // a claim: not yet
      await store.insertIfAbsent({ ...shown, version: 9 }); // exists: nothing written
      await store.update('merchant-1', claim.referenceId, bump({ status: 'SUCCESSFUL' })); // logged
      await store.update('merchant-1', shown.referenceId, (c) => ({ ...c, checkAttempts: 1 })); // bookkeeping
      await store.update('merchant-1', claim.referenceId, () => undefined); // nothing
      await store.insertReserving(held, {}); // logged
      await store.update('merchant-1', held.referenceId, bump({ status: 'FAILED' })); // logged
      await store.remove('merchant-1', claim.referenceId, () => true); // not a change a client sees
      await store.insertIfAbsent(shownRecord({ merchantId: 'merchant-2' })); // another merchant's

      const logged = await store.changesAfter('merchant-1', START_POSITION, 100);
      expect(logged.map((c) => c.position)).toEqual(['1', '2', '3', '4']);
      expect(logged.map((c) => [c.record.referenceId, c.record.version])).toEqual([
        [shown.referenceId, 1],
        [claim.referenceId, 2],
        [held.referenceId, 1],
        [held.referenceId, 2],
      ]);
      // Anything heard twice or out of turn would come before this last change.
      await store.update('merchant-1', shown.referenceId, bump({ message: 'last' }));
      const [last] = await store.changesAfter('merchant-1', '4', 10);
      expect(last.position).toBe('5');
      expect(await watcher.take(5)).toEqual([...logged, last].map((c) => c.record));
      await watcher.stop();
    });

    it('tells of concurrent changes in the order they were logged', async () => {
      const events = db().events();
      const watcher = watching(events.watchMerchant('merchant-1'));
      await events.merchantListening('merchant-1');
      const [a, b] = [record(), record()];
      await store.insertIfAbsent(a);
      await store.insertIfAbsent(b);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.update('merchant-1', (i % 2 ? a : b).referenceId, bump())),
      );
      const logged = await store.changesAfter('merchant-1', START_POSITION, 100);
      expect(logged.map((c) => c.position)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
      expect(await watcher.take(20)).toEqual(logged.map((c) => c.record));
      await watcher.stop();
    });
  });

  describe('retention: prune', () => {
    const T0 = Date.UTC(2026, 0, 1);
    const YEARS = 10 * 365 * 24 * 3600_000;
    let clock: number;
    const withClock = (settings: StoreSettings) => db().store({ now: () => clock, ...settings });
    const kept = async (s: StoreUnderTest, r: Disbursement) => (await s.get(r.merchantId, r.referenceId)) !== undefined;
    beforeEach(() => {
      clock = T0;
    });

    it('removes a final record not written for longer than the retention, and keeps one written within it', async () => {
      const s = withClock({ retentionMs: 60_000 });
      const [old, rewritten, recent] = [
        record({ status: 'SUCCESSFUL' }),
        record({ status: 'SUCCESSFUL' }),
        record({ status: 'FAILED' }),
      ];
      await s.insertIfAbsent(old);
      await s.insertIfAbsent(rewritten);
      clock = T0 + 30_000;
      await s.insertIfAbsent(recent);
      await s.update('merchant-1', rewritten.referenceId, (c) => ({ ...c, message: 'written again' }));
      clock = T0 + 60_000;
      await s.prune();
      expect(await kept(s, old)).toBe(true);
      clock = T0 + 60_001;
      await s.prune();
      expect([await kept(s, old), await kept(s, rewritten), await kept(s, recent)]).toEqual([false, true, true]);
      expect(await s.history('merchant-1', { limit: 10, filter: {} })).toMatchObject({ totalCount: 2 });
      clock = T0 + 90_001;
      await s.prune();
      expect([await kept(s, rewritten), await kept(s, recent)]).toEqual([false, false]);
    });

    it('records each removal in the trail: a RECORD_REMOVED entry with no status, the chain verifying', async () => {
      const s = withClock({ retentionMs: 60_000 });
      const gone = record({ status: 'SUCCESSFUL' });
      await s.insertIfAbsent(gone);
      clock = T0 + 60_001;
      await s.prune();
      expect(await kept(s, gone)).toBe(false);
      const { entries } = await s.auditPage('merchant-1', { limit: 10, filter: {} });
      expect(entries.at(-1)).toMatchObject({
        action: 'RECORD_REMOVED',
        referenceId: gone.referenceId,
        status: null,
        amount: gone.amount,
        detail: 'SUCCESSFUL, not written for RECORD_RETENTION_SECONDS (60 s): its record removed',
      });
      const stored = async function* () {
        yield* entries;
      };
      expect(await verifyChain(stored())).toEqual({ count: entries.length });
    });

    it('never removes a record that is not final, whatever its age', async () => {
      const s = withClock({ retentionMs: 1000 });
      const waiting = (['UNKNOWN', 'PENDING', 'AWAITING_APPROVAL'] as const).map((status) => record({ status }));
      for (const r of waiting) await s.insertIfAbsent(r);
      clock = T0 + YEARS;
      await s.prune();
      for (const r of waiting) expect(await s.get(r.merchantId, r.referenceId)).toEqual(r);
    });

    it('keeps every record when the retention is 0', async () => {
      const s = withClock({ retentionMs: 0 });
      const finals = (['SUCCESSFUL', 'FAILED', 'CANCELLED'] as const).map((status) => record({ status }));
      for (const r of finals) await s.insertIfAbsent(r);
      clock = T0 + YEARS;
      await s.prune();
      for (const r of finals) expect(await s.get(r.merchantId, r.referenceId)).toEqual(r);
    });

    it('drops a change older than the event retention from the log; positions go on after it', async () => {
      const s = withClock({ eventRetentionMs: 60_000 });
      const r = record();
      await s.insertIfAbsent(r);
      await s.update('merchant-1', r.referenceId, bump({ status: 'SUCCESSFUL' }));
      clock = T0 + 30_000;
      await s.update('merchant-1', r.referenceId, bump({ message: 'later' }));
      clock = T0 + 60_001;
      // Past the retention a cursor is expired at once, before the sweep has removed its change.
      expect(await s.hasChange('merchant-1', '1')).toBe(false);
      expect(await s.hasChange('merchant-1', '2')).toBe(true);
      await s.prune();
      expect(await s.hasChange('merchant-1', '1')).toBe(false);
      expect(await s.hasChange('merchant-1', '2')).toBe(true);
      expect((await s.changesAfter('merchant-1', START_POSITION, 10)).map((c) => c.position)).toEqual(['2']);
      clock = T0 + 90_001;
      await s.prune();
      expect(await s.hasChange('merchant-1', '2')).toBe(false);
      expect(await s.changesAfter('merchant-1', START_POSITION, 10)).toEqual([]);
      // The record itself stays: only its changes went.
      expect(await s.get('merchant-1', r.referenceId)).toMatchObject({ version: 3 });
      await s.update('merchant-1', r.referenceId, bump());
      expect((await s.changesAfter('merchant-1', START_POSITION, 10)).map((c) => c.position)).toEqual(['3']);
    });
  });

  describe('retention: the day’s counters', () => {
    it('go with the prune once they hold nothing and their day is past everywhere, alike on every engine', async () => {
      let clock = Date.UTC(2026, 0, 1, 12);
      const s = db().store({ now: () => clock });
      const day = (d: string) =>
        record({ status: 'PENDING', reservation: { day: d, currency: 'ZMW', actorId: 'a', minor: 500 } });
      const [spent, holding, today] = [day('2025-12-30'), day('2025-12-29'), day('2026-01-01')];
      for (const r of [spent, holding, today]) await s.insertReserving(r, {});
      for (const r of [spent, today]) await s.update('merchant-1', r.referenceId, bump({ status: 'FAILED' }));
      const counters = async () =>
        (await db().rows('SELECT day, actor_id, minor FROM daily_reservations ORDER BY day, actor_id')).map((r) =>
          [r.day, r.actor_id, Number(r.minor)].join(' '),
        );
      await s.prune();
      // 2025-12-30 is not yet past everywhere at noon UTC on 2026-01-01; what still holds an amount stays.
      expect(await counters()).toEqual([
        '2025-12-29  500',
        '2025-12-29 a 500',
        '2025-12-30  0',
        '2025-12-30 a 0',
        '2026-01-01  0',
        '2026-01-01 a 0',
      ]);
      clock = Date.UTC(2026, 0, 4);
      await s.prune();
      expect(await counters()).toEqual(['2025-12-29  500', '2025-12-29 a 500']);
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

    it('keeps days, currencies, merchants and actors apart', async () => {
      await store.insertReserving(held('alice', 1000), {});
      await store.insertReserving(held('bob', 300), {});
      await store.insertReserving(held('alice', 50, { merchantId: 'merchant-2' }), {});
      await store.insertReserving(
        record({ reservation: { day: '2026-01-02', currency: 'ZMW', actorId: 'alice', minor: 7 } }),
        {},
      );
      await store.insertReserving(
        record({ reservation: { day: DAY, currency: 'USD', actorId: 'alice', minor: 9 } }),
        {},
      );
      expect(await totals('alice')).toEqual({ merchant: 1300, actor: 1000 });
      expect(await totals('bob')).toEqual({ merchant: 1300, actor: 300 });
      expect(await totals('carol')).toEqual({ merchant: 1300, actor: 0 });
      expect(await store.reserved('merchant-2', DAY, 'ZMW', 'alice')).toEqual({ merchant: 50, actor: 50 });
      expect(await store.reserved('merchant-1', '2026-01-02', 'ZMW', 'alice')).toEqual({ merchant: 7, actor: 7 });
      expect(await store.reserved('merchant-1', DAY, 'USD', 'alice')).toEqual({ merchant: 9, actor: 9 });
    });

    it('stores a record without a reservation as insertIfAbsent does, holding nothing', async () => {
      const r = record();
      expect(await store.insertReserving(r, { dailyMinor: 0 })).toEqual({});
      expect(await store.get('merchant-1', r.referenceId)).toEqual(r);
      expect(await totals()).toEqual({ merchant: 0, actor: 0 });
    });

    it('never passes a cap, however many insert at once', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.insertReserving(held(`actor-${i % 2}`, 1000), { dailyMinor: 7000 })),
      );
      expect(outcomes.filter((o) => !o.refused)).toHaveLength(7);
      expect(outcomes.filter((o) => o.refused).map((o) => o.refused)).toEqual(
        Array(13).fill({ limit: 'dailyLimit', remainingMinor: 0 }),
      );
      expect((await totals()).merchant).toBe(7000);
    });

    it('releases, holds and audits at once without waiting on itself: the counters end as the writes say', async () => {
      const audit = (r: Disbursement) => [
        { ...auditEvent('EXPORTED', new Date(0).toISOString(), {}), referenceId: r.referenceId },
      ];
      const first = Array.from({ length: 20 }, () => held('alice', 100));
      for (const r of first) await store.insertReserving(r, {}, audit(r));
      const later = Array.from({ length: 20 }, () => held('alice', 10));
      await Promise.all([
        ...first.map((r) =>
          store.update(
            'merchant-1',
            r.referenceId,
            (c) => ({ ...c, status: 'FAILED' }),
            () => audit(r),
          ),
        ),
        ...later.map((r) => store.insertReserving(r, { dailyMinor: 10_000 }, audit(r))),
      ]);
      expect(await totals()).toEqual({ merchant: 200, actor: 200 });
      const { entries } = await store.auditPage('merchant-1', { limit: 100, filter: {} });
      expect(entries.map((e) => e.sequence)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
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
      expect((await store.get('merchant-1', failed.referenceId))?.reservation?.released).toBe(true);
      // A later write of the final record, and its removal, give nothing back again.
      await store.update('merchant-1', failed.referenceId, (c) => ({ ...c, message: 'again' }));
      await store.update('merchant-1', cancelled.referenceId, (c) => ({ ...c, status: 'CANCELLED' }));
      await store.remove('merchant-1', cancelled.referenceId, () => true);
      await store.update('merchant-1', kept.referenceId, (c) => ({ ...c, status: 'SUCCESSFUL' }));
      await store.remove('merchant-1', removed.referenceId, () => true);
      expect(await totals()).toEqual({ merchant: 800, actor: 800 });
      // What came back may be reserved again.
      expect(await store.insertReserving(held('alice', 700), { dailyMinor: 1500 })).toEqual({});
    });
  });

  describe('audit: the entries a write carries, recorded in the same step and chained', () => {
    const entry = (action: AuditAction, referenceId: string | null, over: Partial<AuditDraft> = {}): AuditDraft => ({
      at: at(0),
      actor: 'alice',
      action,
      referenceId,
      status: 'PENDING',
      amount: '150.75',
      currency: 'ZMW',
      detail: null,
      ...over,
    });
    const chain = async (merchantId = 'merchant-1') =>
      (await store.auditPage(merchantId, { limit: 1000, filter: {} })).entries;
    async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
      yield* entries;
    }

    it("appends each write's entries, numbered from 1 and chained as the gateway's own code verifies", async () => {
      const [r, claim] = [shownRecord(), record({ sending: true })];
      const held = record({ reservation: { day: '2026-01-01', currency: 'ZMW', actorId: 'alice', minor: 100 } });
      const written: AuditDraft[] = [
        entry('CREATE_REQUESTED', r.referenceId),
        entry('SENT', r.referenceId, { actor: null, at: at(1) }),
        entry('PROVIDER_ANSWERED', r.referenceId, { actor: null, status: 'SUCCESSFUL', at: at(2) }),
        entry('HELD', held.referenceId, { status: 'AWAITING_APPROVAL' }),
        entry('CREATE_REQUESTED', claim.referenceId),
        entry('PROVIDER_ANSWERED', claim.referenceId, { status: null, detail: 'the provider never took it' }),
        // Text as people write it: quotes, a backslash, a newline, a tab, a control character, accents, an emoji.
        entry('EXPORTED', null, {
          status: null,
          amount: null,
          currency: null,
          detail: 'Zikomo "quoted" \\ a\nb\tc\u0001 — é 🙏',
        }),
      ];
      await store.insertIfAbsent(r, written.slice(0, 2));
      await store.update(r.merchantId, r.referenceId, bump({ status: 'SUCCESSFUL' }), () => written.slice(2, 3));
      await store.insertReserving(held, {}, written.slice(3, 4));
      await store.insertIfAbsent(claim, written.slice(4, 5));
      await store.remove(
        claim.merchantId,
        claim.referenceId,
        () => true,
        () => written.slice(5, 6),
      );
      await store.appendAudit('merchant-1', written.slice(6));

      const entries = await chain();
      expect(entries.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(
        entries.map(({ sequence: _s, hash: _h, previousHash: _p, mac: _m, entryId: _i, keyId: _k, ...draft }) => draft),
      ).toEqual(written);
      expect(await verifyChain(listed(entries))).toEqual({ count: 7 });
      // Each keyed by its content, for its merchant and with an id of its own, with the store's chain key,
      // whichever kind of write carried it.
      expect(new Set(entries.map((e) => e.entryId)).size).toBe(7);
      expect(entries.map((e) => e.mac)).toEqual(
        entries.map((e) => contentMac(TEST_CHAIN_KEY, 'merchant-1', e.entryId ?? '', e)),
      );
      // Each names the key that made its keyed value.
      expect(new Set(entries.map((e) => e.keyId))).toEqual(new Set([TEST_ENTRY_KEY.keyId]));
      // The change log numbers its own entries beside the chain.
      expect((await store.changesAfter('merchant-1', START_POSITION, 10)).map((c) => c.position)).toEqual(['1', '2']);
    });

    it('sends each audited write as one request (on PostgreSQL one round trip), a change as at most a read and a write', async () => {
      const r = record();
      const held = record({ reservation: { day: '2026-01-01', currency: 'ZMW', actorId: 'alice', minor: 100 } });
      const calls = async (write: () => Promise<unknown>) => {
        const before = store.databaseCalls;
        await write();
        return store.databaseCalls - before;
      };
      expect(await calls(() => store.insertIfAbsent(r, [entry('CREATE_REQUESTED', r.referenceId)]))).toBe(1);
      expect(
        await calls(() =>
          store.insertReserving(held, { dailyMinor: 1000 }, [entry('CREATE_REQUESTED', held.referenceId)]),
        ),
      ).toBe(1);
      expect(await calls(() => store.insertReserving(held, { dailyMinor: 1000 }))).toBe(1);
      expect(
        await calls(() => store.update(r.merchantId, r.referenceId, bump(), () => [entry('APPROVED', r.referenceId)])),
      ).toBeLessThanOrEqual(2);
      expect(await calls(() => store.appendAudit('merchant-1', [entry('EXPORTED', null)]))).toBe(1);
      // A change right after a read of the row (an approval, a cancel) is its write alone.
      const read = record();
      await db().store().insertIfAbsent(read);
      expect(
        await calls(async () => {
          await store.get(read.merchantId, read.referenceId);
          await store.update(read.merchantId, read.referenceId, bump(), () => [entry('APPROVED', read.referenceId)]);
        }),
      ).toBe(2);
      // An approval of a payout this process claimed: what it knows of it (no request), then its write.
      const held2 = record();
      await store.insertIfAbsent(held2);
      expect(
        await calls(async () => {
          expect(await store.known(held2.merchantId, held2.referenceId)).toEqual(held2);
          await store.update(held2.merchantId, held2.referenceId, bump(), () => [entry('APPROVED', held2.referenceId)]);
        }),
      ).toBe(1);
      expect((await chain()).map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('records nothing for a write that does not happen', async () => {
      const r = record();
      const held = record({ reservation: { day: '2026-01-01', currency: 'ZMW', actorId: 'alice', minor: 100 } });
      await store.insertIfAbsent(r);
      const none = () => [entry('STATUS_CHECKED', r.referenceId)];
      expect(await store.insertIfAbsent(r, none())).toEqual(r);
      expect(await store.update(r.merchantId, r.referenceId, () => undefined, none)).toEqual(r);
      expect(await store.update(r.merchantId, 'missing', bump(), none)).toBeUndefined();
      await store.remove(r.merchantId, r.referenceId, () => false, none);
      expect((await store.insertReserving(held, { dailyMinor: 50 }, none())).refused).toBeDefined();
      await store.appendAudit('merchant-1', []);
      expect(await chain()).toEqual([]);
    });

    it("keeps each merchant's chain apart, each from 1, and pages it oldest first", async () => {
      for (const merchantId of ['merchant-1', 'merchant-2', 'merchant-1', 'merchant-1'])
        await store.appendAudit(merchantId, [entry('EXPORTED', null)]);
      expect((await chain('merchant-2')).map((e) => e.sequence)).toEqual([1]);
      const first = await store.auditPage('merchant-1', { limit: 2, filter: {} });
      expect(first.entries.map((e) => e.sequence)).toEqual([1, 2]);
      expect(first.hasMore).toBe(true);
      const rest = await store.auditPage('merchant-1', { limit: 2, after: 2, filter: {} });
      expect(rest).toMatchObject({ entries: [{ sequence: 3 }], hasMore: false });
      expect(await verifyChain(listed(await chain('merchant-1')))).toEqual({ count: 3 });
    });

    it('keeps one chain without gaps when two instances write at once', async () => {
      const other = db().store();
      const r = record();
      await store.insertIfAbsent(r, [entry('CREATE_REQUESTED', r.referenceId)]);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? store : other).update(r.merchantId, r.referenceId, bump(), () => [
            entry('STATUS_CHECKED', r.referenceId, { detail: `check ${i}` }),
          ]),
        ),
      );
      const entries = await chain();
      expect(await verifyChain(listed(entries))).toEqual({ count: 21 });
      expect(new Set(entries.map((e) => e.detail)).size).toBe(21);
    });

    it('refuses to change or remove an entry behind the gateway', async () => {
      await store.appendAudit('merchant-1', [entry('EXPORTED', null)]);
      // By message: better-sqlite3's errors belong to the realm that first loaded it, maybe not this test file's.
      const refused = { message: expect.stringMatching(/append-only/) };
      await expect(db().exec(`UPDATE audit_log SET detail = 'altered'`)).rejects.toMatchObject(refused);
      await expect(db().exec('DELETE FROM audit_log')).rejects.toMatchObject(refused);
      expect(await verifyChain(listed(await chain()))).toEqual({ count: 1 });
    });
  });

  describe('two instances on one database, as two replicas', () => {
    it("applies both instances' racing updates of one record exactly once each, each instance's in its order", async () => {
      const [a, b] = [store, db().store()];
      const r = record();
      await a.insertIfAbsent(r);
      const marks = (name: string) => Array.from({ length: 15 }, (_, i) => `${name}-${i}`);
      const run = async (s: StoreUnderTest, name: string) => {
        for (const mark of marks(name))
          await s.update('merchant-1', r.referenceId, (c) => ({
            ...c,
            deliveryIds: [...c.deliveryIds, mark],
            version: c.version + 1,
          }));
      };
      await Promise.all([run(a, 'a'), run(b, 'b')]);
      const final = await b.get('merchant-1', r.referenceId);
      expect(final?.version).toBe(31);
      expect(final?.deliveryIds.filter((id) => id.startsWith('a-'))).toEqual(marks('a'));
      expect(final?.deliveryIds.filter((id) => id.startsWith('b-'))).toEqual(marks('b'));
      const logged = await a.changesAfter('merchant-1', START_POSITION, 100);
      expect(logged.map((c) => [c.position, c.record.version])).toEqual(
        Array.from({ length: 30 }, (_, i) => [String(i + 1), i + 2]),
      );
      expect(logged.at(-1)?.record).toEqual(final);
    });

    it('tells the events of one instance of a change written through the other', async () => {
      const events = db().events();
      const writer = db().store();
      const r = shownRecord();
      const watcher = watching(events.watch(r.merchantId, r.referenceId));
      await events.listening(r.merchantId, r.referenceId);
      await writer.insertIfAbsent(r);
      await writer.update(r.merchantId, r.referenceId, bump({ status: 'SUCCESSFUL' }));
      expect(await watcher.take(2)).toEqual([r, { ...r, status: 'SUCCESSFUL', version: 2 }]);
      await watcher.stop();
    });

    it('never passes a cap when insertReserving races over both', async () => {
      const [a, b] = [store, db().store()];
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).insertReserving(
            record({ reservation: { day: '2026-01-01', currency: 'ZMW', actorId: `actor-${i % 3}`, minor: 1000 } }),
            { dailyMinor: 7000, userMinor: 3000 },
          ),
        ),
      );
      expect(outcomes.filter((o) => !o.refused)).toHaveLength(7);
      const held = await Promise.all(
        ['actor-0', 'actor-1', 'actor-2'].map((actor) => a.reserved('merchant-1', '2026-01-01', 'ZMW', actor)),
      );
      expect(held.map((h) => h.merchant)).toEqual([7000, 7000, 7000]);
      expect(held.every((h) => h.actor <= 3000)).toBe(true);
      expect(held.reduce((sum, h) => sum + h.actor, 0)).toBe(7000);
    });
  });

  it('is healthy', async () => {
    expect(await store.healthy()).toBe(true);
  });
}
