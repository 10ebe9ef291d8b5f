import { createHmac, generateKeyPairSync } from 'node:crypto';
import { auditSigningKeys } from '../../src/disbursements/audit.keys';
import { fingerprint } from '../../src/disbursements/disbursement.fingerprint';
import { Disbursement, SendDecision } from '../../src/disbursements/disbursement.model';
import { decisionAllows, resealed, sealed, sealKeysOf, sealState } from '../../src/disbursements/payout.seal';

/**
 * Issue 53: a payout's seal covers its request, its requester and the decision that lets the gateway
 * send it, and names its key. Only the key in use opens a seal for a send; an older key given opens it
 * only to re-seal it; a seal made under a key not given is held for an operator, never called tampered.
 */
const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const [k1] = auditSigningKeys(pem());
const [k2] = auditSigningKeys(pem());
const one = sealKeysOf([k1]);
const rotated = sealKeysOf([k2, k1]);
const onlyNew = sealKeysOf([k2]);

const request = {
  channel: 'MOBILE_MONEY' as const,
  referenceId: 'r-1',
  amount: '2500.00',
  currency: 'ZMW',
  accountNumber: '260971234567',
  sendAt: '2026-12-07T12:00:00.000Z',
};
const alice: SendDecision = { kind: 'WITHIN_LIMITS', byId: 'alice-id', by: 'alice', at: '2026-12-07T10:00:00.000Z' };
const bobApproves: SendDecision = { kind: 'APPROVED', byId: 'bob-id', by: 'bob', at: '2026-12-07T10:05:00.000Z' };
const record = (decision?: SendDecision): Disbursement =>
  ({
    merchantId: 'm',
    referenceId: request.referenceId,
    channel: request.channel,
    request,
    fingerprint: fingerprint(request),
    amount: request.amount,
    currency: request.currency,
    accountNumber: request.accountNumber,
    sendAt: request.sendAt,
    requesterId: 'alice-id',
    decision,
  }) as unknown as Disbursement;

/** The seal of before decisions were sealed: HMAC over the merchant, referenceId and fingerprint, no key id. */
const legacySeal = (keys: typeof one, r: Disbursement) =>
  createHmac('sha256', keys[0].key)
    .update(JSON.stringify([r.merchantId, r.referenceId, r.fingerprint]))
    .digest('hex');

describe('a payout seal', () => {
  const sealedByK1 = sealed(one[0], record(alice));

  it.each<[string, Disbursement, typeof one, string]>([
    ['as sealed, under the key in use', sealedByK1, one, 'sealed'],
    [
      'its account changed (request and record)',
      {
        ...sealedByK1,
        accountNumber: '260979999999',
        request: { ...request, accountNumber: '260979999999' },
        fingerprint: fingerprint({ ...request, accountNumber: '260979999999' }),
      },
      one,
      'broken',
    ],
    ['its shown account changed alone', { ...sealedByK1, accountNumber: '260979999999' }, one, 'broken'],
    ['a decision added by someone with the database', { ...sealed(one[0], record()), decision: alice }, one, 'broken'],
    [
      'its approver changed',
      { ...sealed(one[0], record(bobApproves)), decision: { ...bobApproves, byId: 'mallory-id' } },
      one,
      'broken',
    ],
    ['its requester changed', { ...sealedByK1, requesterId: 'mallory-id' }, one, 'broken'],
    ['no seal at all', { ...sealedByK1, seal: undefined }, one, 'broken'],
    ['sealed under an older key given (rotation)', sealedByK1, rotated, 'elsewhere'],
    ['sealed under a key not given', sealedByK1, onlyNew, 'elsewhere'],
    ['a legacy seal under the key in use', { ...record(), seal: legacySeal(one, record()) }, one, 'legacy'],
    ['a legacy seal under an older key', { ...record(), seal: legacySeal(one, record()) }, rotated, 'elsewhere'],
  ])('%s', (_name, r, keys, kind) => {
    expect(sealState(keys, r).kind).toBe(kind);
  });

  it('names its key, and a re-seal under the key in use keeps its request, requester and decision', () => {
    expect(sealedByK1.seal.startsWith(`v2:${k1.keyId}:`)).toBe(true);
    const again = resealed(rotated, sealedByK1, undefined);
    expect(again?.seal?.startsWith(`v2:${k2.keyId}:`)).toBe(true);
    expect(again?.decision).toEqual(alice);
    expect(again && sealState(onlyNew, again).kind).toBe('sealed');
    // Already under the key in use, forged, or under a key not given: nothing to re-seal.
    expect(resealed(one, sealedByK1, undefined)).toBeUndefined();
    expect(resealed(rotated, { ...sealedByK1, decision: bobApproves }, undefined)).toBeUndefined();
    expect(resealed(onlyNew, sealedByK1, undefined)).toBeUndefined();
  });

  it('a legacy seal is re-sealed with the decision its trail records, never the one its row says', () => {
    const legacy = { ...record(bobApproves), seal: legacySeal(one, record()) };
    const again = resealed(rotated, legacy, alice);
    expect(again?.decision).toEqual(alice);
    expect(resealed(rotated, legacy, undefined)?.decision).toBeUndefined();
  });
});

describe('the decision a send needs', () => {
  const before = new Date('2026-12-07T11:00:00.000Z');
  const after = new Date('2026-12-07T12:00:00.000Z');
  it.each<[string, SendDecision | undefined, Date, string | undefined]>([
    ['none', undefined, after, 'no recorded decision lets the gateway send it'],
    ['its requester within the controls, at its time', alice, after, undefined],
    [
      'its requester within the controls, before its time',
      alice,
      before,
      'its time (2026-12-07T12:00:00.000Z) has not come',
    ],
    ['a second person’s approval', bobApproves, after, undefined],
    [
      'an approval by its own requester',
      { ...bobApproves, byId: 'alice-id' },
      after,
      'its approval was made by its own requester',
    ],
    [
      '“within the controls” by someone else',
      { ...alice, byId: 'bob-id' },
      after,
      'its decision was made by someone other than its requester',
    ],
  ])('%s', (_name, decision, now, why) => {
    expect(decisionAllows(record(decision), decision, now)).toBe(why);
  });
});
