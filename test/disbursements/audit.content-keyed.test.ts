import {
  AuditDraft,
  AuditEntry,
  auditEvent,
  chainedAll,
  chainHash,
  entryMac,
  GENESIS_HASH,
  keyed,
} from '../../src/disbursements/audit.entry';
import { signedCheckpoint } from '../../src/disbursements/audit.keys';
import { chainBreaks } from '../../src/disbursements/audit.verify';
import { TEST_AUDIT_KEYS, TEST_CHAIN_KEY, TEST_ENTRY_KEY } from '../support/chain-key';

/*
 * Entries keyed by their content (schema version 10): the gateway keys each before it has a place and
 * the database numbers and links it. Someone who can write to the database can then re-link a genuine
 * entry wherever they like; what the keyed value covers (the merchant, the entry's id, its content)
 * is what still gives such an entry away.
 */

const drafts: AuditDraft[] = ['a', 'b', 'c', 'd'].map((detail, i) =>
  auditEvent('EXPORTED', new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), { detail }),
);

async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
  yield* entries;
}

/** The entries numbered and linked again in this order, as an insider (or audit_chain()) would. */
function relinked(entries: AuditEntry[]): AuditEntry[] {
  let previous = GENESIS_HASH;
  return entries.map((entry, index) => {
    const hash = chainHash(previous, index + 1, entry);
    const relinkedEntry = { ...entry, sequence: index + 1, previousHash: previous, hash };
    previous = hash;
    return relinkedEntry;
  });
}

const verify = (entries: AuditEntry[], merchantId = 'm1') =>
  chainBreaks(listed(entries), { merchantId, keys: TEST_AUDIT_KEYS });

describe('an audit chain keyed by content', () => {
  it('gives every entry an id of its own, 128 random bits in base64url, across refills of the id pool', () => {
    // 1,000 ids span several refills of the 256-id pool: a slice handed out twice would be a repeat.
    const ids = Array.from({ length: 1_000 }, () => keyed('m1', drafts[0], TEST_ENTRY_KEY).entryId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  const genuine = chainedAll(undefined, drafts, TEST_ENTRY_KEY, 'm1');

  it('verifies as written, with the key, and each entry has an id of its own', async () => {
    expect(await verify(genuine)).toEqual({ count: 4, breaks: [], unchecked: [] });
    expect(new Set(genuine.map((e) => e.entryId)).size).toBe(4);
  });

  it('refuses a genuine entry replayed at another place, every link recomputed', async () => {
    const report = await verify(relinked([...genuine, genuine[1]]));
    expect(report.breaks).toEqual([
      { sequence: 5, why: expect.stringMatching(/sequence 2: a copy of an entry, replayed/) },
    ]);
  });

  it("refuses another merchant's genuine entry moved into the chain", async () => {
    const other = chainedAll(undefined, drafts.slice(0, 1), TEST_ENTRY_KEY, 'm2');
    const report = await verify(relinked([...genuine, ...other]));
    expect(report.breaks).toEqual([{ sequence: 5, why: expect.stringMatching(/keyed value does not verify/) }]);
  });

  it('refuses a replayed entry given a new id, and an entry whose content was edited', async () => {
    const renamed = { ...genuine[1], entryId: 'x'.repeat(22) };
    const edited = { ...genuine[2], detail: 'z' };
    const report = await verify(relinked([genuine[0], genuine[1], edited, genuine[3], renamed]));
    expect(report.breaks.map((b) => [b.sequence, b.why])).toEqual([
      [3, expect.stringMatching(/keyed value does not verify/)],
      [5, expect.stringMatching(/keyed value does not verify/)],
    ]);
  });

  it('refuses an entry keyed by content whose id was removed, so its keyed value is read as over its hash', async () => {
    const report = await verify([genuine[0], { ...genuine[1], entryId: null }, ...genuine.slice(2)]);
    expect(report.breaks).toEqual([{ sequence: 2, why: expect.stringMatching(/keyed value does not verify/) }]);
  });

  it('an entry removed and the rest relinked, keyed values kept, shows once a signed checkpoint covers it, and only then', async () => {
    const head = genuine.at(-1)!;
    const checkpoint = signedCheckpoint(TEST_ENTRY_KEY, { merchantId: 'm1', ...head }, new Date().toISOString());
    const cut = relinked([genuine[0], ...genuine.slice(2)]);
    const covered = await chainBreaks(listed(cut), {
      merchantId: 'm1',
      keys: TEST_AUDIT_KEYS,
      checkpoints: [checkpoint],
    });
    expect(covered.breaks.map((b) => b.sequence)).toEqual([4]);
    const publicOnly = [{ keyId: TEST_ENTRY_KEY.keyId, publicKey: TEST_ENTRY_KEY.publicKey }];
    expect((await chainBreaks(listed(cut), { keys: publicOnly, checkpoints: [checkpoint] })).breaks).toHaveLength(1);
    // Before the checkpoint signs the head, each relinked entry is still the gateway's, and the head row
    // moved along: the keyed values do not cover an entry's place (docs/audit-and-reconciliation.md).
    expect(await verify(cut)).toEqual({ count: 3, breaks: [], unchecked: [] });
  });

  it('still verifies entries keyed over their hash before version 10, followed by entries keyed by content', async () => {
    const [old] = chainedAll(undefined, drafts.slice(0, 1), TEST_ENTRY_KEY, 'm1');
    const before: AuditEntry = { ...old, entryId: undefined, mac: entryMac(TEST_CHAIN_KEY, old.hash) };
    const after = chainedAll(before, drafts.slice(1), TEST_ENTRY_KEY, 'm1');
    expect(await verify([before, ...after])).toEqual({ count: 4, breaks: [], unchecked: [] });
  });
});
