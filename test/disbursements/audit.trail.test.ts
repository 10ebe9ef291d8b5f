import { AuditEntry, chained } from '../../src/disbursements/audit.entry';
import { chainBreaks, verifyChain } from '../../src/disbursements/audit.verify';
import { auditSigningKeys, signedCheckpoint } from '../../src/disbursements/audit.keys';
import { generateKeyPairSync } from 'node:crypto';
import { DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { Actor } from '../../src/disbursements/payout.controls';
import { CreateScript, Domain, domain, merchant, mobileRequest } from '../support/domain';
import { TEST_ENTRY_KEY } from '../support/chain-key';

const alice: Actor = { id: 'alice', name: 'alice' };
const bob: Actor = { id: 'bob', name: 'bob' };
const controlled: Merchant = {
  id: 'm-controls',
  apiKey: 'key-controls',
  controls: {
    approvalAbove: { ZMW: '5000' },
    maxAmount: { ZMW: '9000' },
    dailyLimit: { ZMW: '8000' },
    approvalTtlSeconds: 60,
  },
};
const T0 = Date.parse('2026-11-25T10:00:00Z');

async function trail(d: Domain, m: Merchant, referenceId?: string): Promise<AuditEntry[]> {
  const page = await d.service.auditTrail(m, { first: 200, filter: referenceId ? { referenceId } : {} });
  return page.entries;
}

const actions = (entries: AuditEntry[]) => entries.map((e) => [e.action, e.actor, e.status]);

async function attempt<T>(promise: Promise<T>): Promise<T | string> {
  try {
    return await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
  yield* entries;
}

describe('every create outcome is recorded, in order, in the same step as the change', () => {
  it.each<[string, CreateScript, (string | null)[][]]>([
    [
      'answered PENDING',
      'Pending',
      [
        ['CREATE_REQUESTED', 'anonymous', 'UNKNOWN'],
        ['SENT', null, 'UNKNOWN'],
        ['PROVIDER_ANSWERED', null, 'PENDING'],
      ],
    ],
    [
      'answered FAILED at once',
      'Failed',
      [
        ['CREATE_REQUESTED', 'anonymous', 'UNKNOWN'],
        ['SENT', null, 'UNKNOWN'],
        ['PROVIDER_ANSWERED', null, 'FAILED'],
      ],
    ],
    [
      'no answer (timeout): sent, outcome unknown',
      { fail: new ProviderError('unknown', 'provider call timed out'), stores: false },
      [
        ['CREATE_REQUESTED', 'anonymous', 'UNKNOWN'],
        ['SENT', null, 'UNKNOWN'],
      ],
    ],
    [
      'refused with 400 and the provider has nothing: sent, refused, no payout left',
      { fail: new ProviderError('rejected', 'accountNumber is invalid', { status: 400 }), stores: false },
      [
        ['CREATE_REQUESTED', 'anonymous', 'UNKNOWN'],
        ['SENT', null, 'UNKNOWN'],
        ['PROVIDER_ANSWERED', null, null],
      ],
    ],
    [
      'provider unreachable before sending: nothing sent, nothing left',
      { fail: new ProviderError('unavailable', 'provider unreachable (ECONNREFUSED)'), stores: false },
      [
        ['CREATE_REQUESTED', 'anonymous', 'UNKNOWN'],
        ['PROVIDER_ANSWERED', null, null],
      ],
    ],
  ])('%s', async (_name, script, expected) => {
    const d = domain();
    const request = mobileRequest();
    d.provider.script.push(script);
    await attempt(d.service.create(merchant, request));
    const entries = await trail(d, merchant, request.referenceId);
    expect(actions(entries)).toEqual(expected);
    expect(await verifyChain(listed(await trail(d, merchant)))).toEqual({ count: entries.length });
  });

  it('the callback that settles it comes after the answer, each entry linked to the one before', async () => {
    const d = domain();
    const request = mobileRequest();
    await d.service.create(merchant, request);
    d.provider.settle(request.referenceId, 'Successful');
    const record = d.provider.ledger.get(request.referenceId)!;
    await d.service.applyCallback(merchant, record, { verified: true, deliveryId: 'msg_1' });
    const entries = await trail(d, merchant, request.referenceId);
    expect(actions(entries).map(([action]) => action)).toEqual([
      'CREATE_REQUESTED',
      'SENT',
      'PROVIDER_ANSWERED',
      'CALLBACK',
    ]);
    expect(entries.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
    expect(entries[0].previousHash).toBe('0'.repeat(64));
    for (let i = 1; i < entries.length; i += 1) expect(entries[i].previousHash).toBe(entries[i - 1].hash);
    expect(entries[3]).toMatchObject({ status: 'SUCCESSFUL', amount: '150.75', currency: 'ZMW' });
  });
});

describe('payout controls are recorded with who decided', () => {
  let d: Domain;
  let clock: number;
  beforeEach(() => {
    clock = T0;
    d = domain({ now: () => new Date(clock) });
  });
  const held = async (): Promise<DisbursementRequest> => {
    const request = mobileRequest({ amount: '6000' });
    expect((await d.service.create(controlled, request, undefined, alice)).status).toBe('AWAITING_APPROVAL');
    return request;
  };

  it.each<[string, (request: DisbursementRequest) => Promise<unknown>, (string | null)[][]]>([
    [
      'held, then approved by another person before the send',
      (r) => d.service.approve(controlled, r.referenceId, bob),
      [
        ['CREATE_REQUESTED', 'alice', 'AWAITING_APPROVAL'],
        ['HELD', null, 'AWAITING_APPROVAL'],
        ['APPROVED', 'bob', 'UNKNOWN'],
        ['SENT', null, 'UNKNOWN'],
        ['PROVIDER_ANSWERED', null, 'PENDING'],
      ],
    ],
    [
      'rejected',
      (r) => d.service.reject(controlled, r.referenceId, bob, 'not this supplier'),
      [
        ['CREATE_REQUESTED', 'alice', 'AWAITING_APPROVAL'],
        ['HELD', null, 'AWAITING_APPROVAL'],
        ['REJECTED', 'bob', 'CANCELLED'],
      ],
    ],
    [
      'cancelled by its requester',
      (r) => d.service.cancel(controlled, r.referenceId, alice, false),
      [
        ['CREATE_REQUESTED', 'alice', 'AWAITING_APPROVAL'],
        ['HELD', null, 'AWAITING_APPROVAL'],
        ['CANCELLED', 'alice', 'CANCELLED'],
      ],
    ],
    [
      'expired',
      async (r) => {
        clock = T0 + 61_000;
        const record = (await d.store.get(controlled.id, r.referenceId))!;
        return d.service.runDue(controlled, record);
      },
      [
        ['CREATE_REQUESTED', 'alice', 'AWAITING_APPROVAL'],
        ['HELD', null, 'AWAITING_APPROVAL'],
        ['EXPIRED', null, 'CANCELLED'],
      ],
    ],
  ])('%s', async (_name, act, expected) => {
    const request = await held();
    await act(request);
    expect(actions(await trail(d, controlled, request.referenceId))).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ['above maxAmount', '9500', 'maxAmount'],
    ['past the daily limit', '4000', 'dailyLimit'],
  ])('a payout refused %s is one LIMIT_REFUSED entry and nothing else', async (_name, amount, limit) => {
    if (limit === 'dailyLimit') await d.service.create(controlled, mobileRequest({ amount: '4500' }), undefined, alice);
    const request = mobileRequest({ amount });
    expect(await attempt(d.service.create(controlled, request, undefined, alice))).toBe('LIMIT_EXCEEDED');
    const entries = await trail(d, controlled, request.referenceId);
    expect(actions(entries)).toEqual([['LIMIT_REFUSED', 'alice', null]]);
    expect(entries[0].detail).toContain(limit);
  });
});

describe('the chain', () => {
  it('never shows another merchant’s entries, and each merchant’s numbering starts at 1', async () => {
    const d = domain();
    const other: Merchant = { id: 'm-other', apiKey: 'key-other' };
    await d.service.create(merchant, mobileRequest());
    await d.service.create(other, mobileRequest());
    const mine = await trail(d, merchant);
    const theirs = await trail(d, other);
    expect(mine.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(theirs.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(new Set(theirs.map((e) => e.referenceId))).not.toContain(mine[0].referenceId);
  });

  it.each<[string, (entries: AuditEntry[]) => AuditEntry[], number]>([
    ['an altered amount', (e) => e.map((x, i) => (i === 2 ? { ...x, amount: '1.00' } : x)), 3],
    ['a removed entry', (e) => e.filter((_x, i) => i !== 1), 3],
    ['a rewritten hash', (e) => e.map((x, i) => (i === 1 ? { ...x, hash: 'f'.repeat(64) } : x)), 2],
  ])('verification names the first entry that does not verify: %s', async (_name, tamper, sequence) => {
    const d = domain();
    await d.service.create(merchant, mobileRequest());
    await d.service.create(merchant, mobileRequest());
    const entries = await trail(d, merchant);
    expect(await verifyChain(listed(entries))).toEqual({ count: 6 });
    expect(await verifyChain(listed(tamper(entries)))).toMatchObject({ sequence });
  });

  it('every break is reported, not the first: two altered entries, and a forged checkpoint set aside', async () => {
    const d = domain();
    await d.service.create(merchant, mobileRequest());
    await d.service.create(merchant, mobileRequest());
    const entries = await trail(d, merchant);
    const [keys] = auditSigningKeys(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    const genuine = signedCheckpoint(keys, { merchantId: merchant.id, sequence: 6, hash: entries[5].hash }, 'now');
    // The entries are keyed with the test's chain key: these keys check signatures only.
    const verifying = [{ keyId: keys.keyId, publicKey: keys.publicKey }];
    const forged = { ...genuine, sequence: 7, hash: 'f'.repeat(64), signature: genuine.signature };
    const altered = entries.map((x, i) => (i === 1 || i === 4 ? { ...x, amount: '1.00' } : x));
    const report = await chainBreaks(listed(altered), { checkpoints: [forged, genuine], keys: verifying });
    expect(report.breaks.map((b) => b.sequence)).toEqual([7, 2, 5]);
    expect(report.breaks[0].why).toMatch(/forged, set aside/);
    // The forged checkpoint claims a 7th entry: set aside, it does not make the chain short.
    expect(
      (await chainBreaks(listed(entries), { checkpoints: [forged, genuine], keys: verifying })).breaks,
    ).toHaveLength(1);
    expect(await chainBreaks(listed(entries), { checkpoints: [genuine], keys: verifying })).toEqual({
      count: 6,
      breaks: [],
      unchecked: [],
    });
  });

  it("against the merchant's head, a chain cut short or rewritten from an entry on does not verify", async () => {
    const d = domain();
    await d.service.create(merchant, mobileRequest());
    await d.service.create(merchant, mobileRequest());
    const entries = await trail(d, merchant);
    const head = { sequence: 6, hash: entries[5].hash };
    expect(await verifyChain(listed(entries), { head })).toEqual({ count: 6 });
    expect(await verifyChain(listed(entries.slice(0, 4)), { head })).toMatchObject({ sequence: 5 });
    // Entry 5 altered and every hash from it on recomputed: each link holds, but not the head's.
    const altered = chained(entries[3], { ...entries[4], amount: '1.00' }, TEST_ENTRY_KEY);
    const rewritten = [...entries.slice(0, 4), altered, chained(altered, entries[5], TEST_ENTRY_KEY)];
    expect(await verifyChain(listed(rewritten))).toEqual({ count: 6 });
    expect(await verifyChain(listed(rewritten), { head })).toMatchObject({ sequence: 6 });
  });

  it('filters by action, actor and time', async () => {
    const d = domain();
    const request = mobileRequest();
    await d.service.create(merchant, request);
    const page = await d.service.auditTrail(merchant, { first: 10, filter: { actions: ['SENT'] } });
    expect(page.entries.map((e) => e.action)).toEqual(['SENT']);
    const none = await d.service.auditTrail(merchant, { first: 10, filter: { actor: 'bob' } });
    expect(none.entries).toEqual([]);
    const later = await d.service.auditTrail(merchant, { first: 10, filter: { from: '2999-01-01T00:00:00.000Z' } });
    expect(later.entries).toEqual([]);
  });
});
