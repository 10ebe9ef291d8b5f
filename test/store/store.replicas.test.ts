import { auditEvent, AuditEntry } from '../../src/disbursements/audit.entry';
import { verifyChain } from '../../src/disbursements/audit.verify';
import { TEST_ENTRY_KEY } from '../support/chain-key';
import { databasePerTest, describeEngines, Engine } from '../support/engines';
import { record } from './store.fixtures';

/**
 * Claims, leases and releases across two store instances on one database, as two replicas hold them: each instance has
 * connections of its own on PostgreSQL (the embedded file's instances share its one handle).
 */
function replicas(engine: Engine): void {
  const db = databasePerTest(engine);

  it('lets only one of them claim a referenceId, and shows the other the claim', async () => {
    const [a, b] = [db().store(), db().store()];
    const referenceId = 'claimed-by-one';
    const claims = Array.from({ length: 20 }, (_, i) => record({ referenceId, amount: `${i + 1}.00`, sending: true }));
    const answers = await Promise.all(claims.map((c, i) => (i % 2 === 0 ? a : b).insertIfAbsent(c)));
    const winners = claims.filter((_, i) => answers[i] === undefined);
    expect(winners).toHaveLength(1);
    for (const answer of answers) if (answer) expect(answer).toEqual(winners[0]);
    expect(await b.get('merchant-1', referenceId)).toEqual(winners[0]);
    expect(await a.get('merchant-1', referenceId)).toEqual(winners[0]);
  });

  it('leases a due record to only one of them', async () => {
    const [a, b] = [db().store(), db().store()];
    const r = record({ due: { kind: 'RECHECK', at: new Date(Date.now() - 1000).toISOString() } });
    await a.insertIfAbsent(r);
    const [dueOnA, dueOnB] = await Promise.all([a.due(new Date(), 100), b.due(new Date(), 100)]);
    expect(dueOnA.map((d) => d.referenceId)).toContain(r.referenceId);
    expect(dueOnB.map((d) => d.referenceId)).toContain(r.referenceId);
    const leases = [0, 1].map((i) => new Date(Date.now() + 30_000 + i).toISOString());
    const held = await Promise.all(
      [a, b].map((store, i) =>
        store.update(r.merchantId, r.referenceId, (c) =>
          c.leasedUntil === r.leasedUntil ? { ...c, leasedUntil: leases[i] } : undefined,
        ),
      ),
    );
    expect(held.filter((h, i) => h?.leasedUntil === leases[i])).toHaveLength(1);
    expect((await b.due(new Date(), 100)).map((d) => d.referenceId)).not.toContain(r.referenceId);
    expect((await a.due(new Date(), 100)).map((d) => d.referenceId)).not.toContain(r.referenceId);
  });

  it('changes a row the other changed since it last wrote it on what the other wrote, losing nothing', async () => {
    const [a, b] = [db().store(), db().store()];
    const r = record({ deliveryIds: [] });
    await a.insertIfAbsent(r);
    const add = (id: string) => (c: typeof r) => ({ ...c, deliveryIds: [...c.deliveryIds, id] });
    // One call: A wrote the row last, so it changes it without reading it first (on PostgreSQL).
    const before = a.databaseCalls;
    await a.update(r.merchantId, r.referenceId, add('a1'));
    expect(a.databaseCalls - before).toBe(1);
    await b.update(r.merchantId, r.referenceId, add('b1'));
    // A's last write is stale now: its change runs again on B's, nothing of either is lost.
    expect((await a.update(r.merchantId, r.referenceId, add('a2')))?.deliveryIds).toEqual(['a1', 'b1', 'a2']);
    expect((await b.get(r.merchantId, r.referenceId))?.deliveryIds).toEqual(['a1', 'b1', 'a2']);
    // A change that finds nothing to do in A's own last write is asked again of the row as it now is.
    await b.update(r.merchantId, r.referenceId, add('b2'));
    const seen = await a.update(r.merchantId, r.referenceId, (c) =>
      c.deliveryIds.includes('b2') ? add('a3')(c) : undefined,
    );
    expect(seen?.deliveryIds).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('changes a row altered behind its back, its revision unmoved, on the row as it now is', async () => {
    const a = db().store();
    const r = record({ accountNumber: '260971234567' });
    await a.insertIfAbsent(r);
    const altered = JSON.stringify({ ...r, accountNumber: '260979999999' });
    await db().exec(
      `UPDATE payouts SET record = '${altered}' WHERE merchant_id = '${r.merchantId}' AND reference_id = '${r.referenceId}'`,
    );
    const seen: string[] = [];
    await a.update(r.merchantId, r.referenceId, (c) => (seen.push(c.accountNumber), { ...c, narration: 'seen' }));
    expect(seen.at(-1)).toBe('260979999999');
    expect((await a.get(r.merchantId, r.referenceId))?.accountNumber).toBe('260979999999');
  });

  it('releases a claim through one that the other then sees gone, and lets it claim the key again', async () => {
    const [a, b] = [db().store(), db().store()];
    const r = record({ sending: true, due: { kind: 'RECHECK', at: new Date(Date.now() - 1000).toISOString() } });
    await a.insertIfAbsent(r);
    await b.remove(r.merchantId, r.referenceId, (c) => c.sending);
    expect(await a.get(r.merchantId, r.referenceId)).toBeUndefined();
    expect((await a.due(new Date(), 100)).map((d) => d.referenceId)).not.toContain(r.referenceId);
    expect(await a.insertIfAbsent(r)).toBeUndefined();
  });

  it("chains one merchant's audited writes from both, all at once, without a gap or a fork", async () => {
    const [a, b] = [db().store(), db().store()];
    const claims = Array.from({ length: 100 }, () => record({ sending: true }));
    const entry = (i: number) => auditEvent('EXPORTED', new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), {});
    await Promise.all([
      ...claims.map((c, i) => (i % 2 === 0 ? a : b).insertIfAbsent(c, [entry(i)])),
      ...claims.map((_c, i) => (i % 2 === 0 ? b : a).appendAudit('merchant-1', [entry(i), entry(i)])),
    ]);
    const { entries } = await a.auditPage('merchant-1', { limit: 1000, filter: {} });
    expect(entries.map((e) => e.sequence)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    async function* listed(list: AuditEntry[]) {
      yield* list;
    }
    const head = await b.auditHead('merchant-1');
    const keys = [TEST_ENTRY_KEY];
    expect(await verifyChain(listed(entries), { merchantId: 'merchant-1', head, keys })).toEqual({ count: 300 });
  });
}

describeEngines('two DisbursementStore instances on one database', replicas);
