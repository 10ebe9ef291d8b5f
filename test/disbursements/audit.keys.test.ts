import { generateKeyPairSync } from 'node:crypto';
import { AuditAction, AuditEntry, auditEvent, chainedAll } from '../../src/disbursements/audit.entry';
import { auditPublicKeys, auditSigningKeys, signedCheckpoint } from '../../src/disbursements/audit.keys';
import { chainBreaks } from '../../src/disbursements/audit.verify';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const [key1] = auditSigningKeys(pem());
const [key2] = auditSigningKeys(pem());

/** The merchant whose trail these are: an entry keyed by content is keyed for its merchant. */
const M = 'm';

async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
  yield* entries;
}

const drafts = (n: number) =>
  Array.from({ length: n }, (_v, i) => auditEvent(AuditAction.EXPORTED, `2026-01-01T00:00:0${i}.000Z`, {}));

/** Three entries under key 1, then two under key 2: a trail across a rotation. */
function rotatedTrail(): AuditEntry[] {
  const first = chainedAll(undefined, drafts(3), key1, M);
  return [...first, ...chainedAll(first.at(-1), drafts(2), key2, M)];
}

describe('audit keys', () => {
  it('reads several keys from one setting, the first in use, each with its id; refuses one twice', () => {
    const [a, b] = [pem(), pem()];
    const ring = auditSigningKeys(`${a}\n${b}`);
    expect(ring.map((k) => k.keyId)).toEqual([auditSigningKeys(a)[0].keyId, auditSigningKeys(b)[0].keyId]);
    expect(ring[0].keyId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(() => auditSigningKeys(`${a}${a}`)).toThrow(/same key twice/);
    const publicPem = ring[1].publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(auditPublicKeys(publicPem)[0].keyId).toBe(ring[1].keyId);
  });

  it("checks each entry's keyed value under the key it names; with one key missing, names what it could not check", async () => {
    const trail = rotatedTrail();
    expect(trail.map((e) => e.keyId)).toEqual([key1.keyId, key1.keyId, key1.keyId, key2.keyId, key2.keyId]);
    expect(await chainBreaks(listed(trail), { merchantId: M, keys: [key2, key1] })).toEqual({
      count: 5,
      breaks: [],
      unchecked: [],
    });
    expect((await chainBreaks(listed(trail), { merchantId: M, keys: [key2] })).unchecked).toEqual([
      { what: 'entries', keyId: key1.keyId, from: 1, to: 3, count: 3 },
    ]);
    // Keys interleaved (replicas restarted one by one): each run of entries named apart.
    const first = chainedAll(undefined, drafts(2), key1, M);
    const second = chainedAll(first.at(-1), drafts(1), key2, M);
    const interleaved = [...first, ...second, ...chainedAll(second.at(-1), drafts(1), key1, M)];
    expect((await chainBreaks(listed(interleaved), { merchantId: M, keys: [key2] })).unchecked).toEqual([
      { what: 'entries', keyId: key1.keyId, from: 1, to: 2, count: 2 },
      { what: 'entries', keyId: key1.keyId, from: 4, to: 4, count: 1 },
    ]);
    const forged = trail.map((e, i) => (i === 1 ? { ...e, mac: 'a'.repeat(64) } : e));
    expect((await chainBreaks(listed(forged), { merchantId: M, keys: [key2, key1] })).breaks).toEqual([
      { sequence: 2, why: expect.stringContaining(`does not verify under key ${key1.keyId}`) },
    ]);
  });

  it('tries every key on what names none (written before key ids), and signs checkpoints naming their key', async () => {
    const legacy = rotatedTrail().map((e) => ({ ...e, keyId: null }));
    expect((await chainBreaks(listed(legacy), { merchantId: M, keys: [key2, key1] })).breaks).toEqual([]);
    // Key 1 not given: uncovered, its entries cannot be told from forgeries.
    expect((await chainBreaks(listed(legacy), { merchantId: M, keys: [key2] })).breaks.map((b) => b.sequence)).toEqual([
      1, 2, 3,
    ]);
    const head = { merchantId: M, sequence: 3, hash: legacy[2].hash };
    const checkpoint = signedCheckpoint(key1, head, 'now');
    expect(checkpoint.keyId).toBe(key1.keyId);
    const publicOnly = [{ keyId: key2.keyId, publicKey: key2.publicKey }];
    const report = await chainBreaks(listed(legacy), { merchantId: M, keys: publicOnly, checkpoints: [checkpoint] });
    expect(report).toMatchObject({ breaks: [], unchecked: [{ what: 'checkpoints', keyId: key1.keyId, from: 3 }] });
  });
});
