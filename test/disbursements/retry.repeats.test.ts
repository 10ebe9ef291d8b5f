import { AuditAction, AuditEntry, auditOf } from '../../src/disbursements/audit.entry';
import { BURST_MS } from '../../src/disbursements/audit.repeats';
import { verifyChain } from '../../src/disbursements/audit.verify';
import { AuditRule, ProviderError } from '../../src/disbursements/disbursement.ports';
import { NEVER_RECEIVED, newClaim } from '../../src/disbursements/disbursement.record';
import { RecordWriter } from '../../src/disbursements/disbursement.writer';
import { CreateScript, Domain, domain, merchant, mobileRequest } from '../support/domain';

/** Issue #35: a payout a client retries while the provider refuses it the same way stays small, and says how often. */

const T0 = Date.parse('2026-11-26T10:00:00Z');
const UNREACHABLE = 'provider unreachable (ECONNREFUSED)';
const unreachable = (): CreateScript => ({ fail: new ProviderError('unavailable', UNREACHABLE), stores: false });

/** A payout a client has seen UNKNOWN, past RESEND_AFTER_SECONDS: each retry asks, sends again, and is refused. */
async function seenUnknown() {
  let clock = T0;
  const d = domain({ now: () => new Date(clock) });
  const tick = (ms: number) => void (clock += ms);
  const request = mobileRequest();
  d.provider.script.push({ fail: new ProviderError('unknown', 'provider call timed out'), stores: false });
  await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
  tick(61_000);
  const retry = async (times: number, gapMs = 1000) => {
    for (let i = 0; i < times; i += 1) {
      tick(gapMs);
      d.provider.script.push(unreachable());
      await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    }
  };
  return { d, request, retry, at: () => new Date(clock).toISOString() };
}

async function trail(d: Domain, referenceId: string): Promise<AuditEntry[]> {
  return (await d.service.auditTrail(merchant, { first: 200, filter: { referenceId } })).entries;
}

describe('a step repeated by retries', () => {
  it('is one history entry counting how often and until when, published once', async () => {
    const { d, request, retry } = await seenUnknown();
    await retry(1);
    const first = await d.store.get(merchant.id, request.referenceId);
    await retry(4);
    const record = await d.store.get(merchant.id, request.referenceId);
    expect(record?.history.map((e) => [e.status, e.source, e.message, e.repeated, e.at, e.lastAt])).toEqual([
      [
        'UNKNOWN',
        'CREATE',
        'Outcome unknown: provider call timed out',
        undefined,
        new Date(T0).toISOString(),
        undefined,
      ],
      [
        'UNKNOWN',
        'STATUS_CHECK',
        NEVER_RECEIVED,
        5,
        new Date(T0 + 62_000).toISOString(),
        new Date(T0 + 66_000).toISOString(),
      ],
    ]);
    // A repeat is not a change: same version, nothing more published or logged.
    expect(record?.version).toBe(first?.version);
    const published = d.published.filter((r) => r.referenceId === request.referenceId);
    expect(published.map((r) => r.history.length)).toEqual([1, 2]);
    expect(await d.store.changesAfter(merchant.id, '0', 100)).toHaveLength(2);
  });

  it('the next different step is a new entry and a change again', async () => {
    const { d, request, retry } = await seenUnknown();
    await retry(3);
    await expect(d.service.create(merchant, request)).resolves.toMatchObject({ status: 'PENDING' });
    const record = await d.store.get(merchant.id, request.referenceId);
    expect(record?.history.map((e) => [e.status, e.repeated])).toEqual([
      ['UNKNOWN', undefined],
      ['UNKNOWN', 3],
      ['PENDING', undefined],
    ]);
    expect(d.provider.creates).toHaveLength(5);
  });
});

describe('an audit entry repeated in a burst', () => {
  it('is written once, counted, and summarised in one entry before the next different one; the chain verifies', async () => {
    const { d, request, retry } = await seenUnknown();
    await retry(4);
    const during = await trail(d, request.referenceId);
    expect(during.map((e) => [e.action, e.detail])).toEqual([
      ['CREATE_REQUESTED', 'mobile money payout to 260971234567'],
      ['SENT', 'no answer (provider call timed out): outcome unknown'],
      ['PROVIDER_ANSWERED', `not sent: ${UNREACHABLE}`],
    ]);
    await expect(d.service.create(merchant, request)).resolves.toMatchObject({ status: 'PENDING' });
    const after = await trail(d, request.referenceId);
    const from = new Date(T0 + 63_000).toISOString();
    const to = new Date(T0 + 65_000).toISOString();
    expect(after.slice(3).map((e) => [e.action, e.status, e.at, e.detail])).toEqual([
      [
        'PROVIDER_ANSWERED',
        'UNKNOWN',
        to,
        `the same again 3 more times, from ${from} to ${to}: not sent: ${UNREACHABLE}`,
      ],
      ['SENT', 'UNKNOWN', expect.any(String), null],
      ['PROVIDER_ANSWERED', 'PENDING', expect.any(String), 'Pending'],
    ]);
    const all = (await d.service.auditTrail(merchant, { first: 200, filter: {} })).entries;
    expect(await verifyChain(listed(all))).toEqual({ count: all.length });
  });

  it('is written again once its burst is over, after the summary of the burst', async () => {
    const { d, request, retry } = await seenUnknown();
    await retry(2);
    await retry(1, BURST_MS);
    const details = (await trail(d, request.referenceId)).slice(2).map((e) => e.detail);
    expect(details).toEqual([
      `not sent: ${UNREACHABLE}`,
      expect.stringMatching(/^the same again once more, from .* to .*: not sent: /),
      `not sent: ${UNREACHABLE}`,
    ]);
  });

  it('never counts a send: each one left the gateway', async () => {
    let clock = T0;
    const d = domain({ now: () => new Date(clock) });
    const request = mobileRequest();
    for (let i = 0; i < 3; i += 1) {
      d.provider.script.push({ fail: new ProviderError('unknown', 'provider call timed out'), stores: false });
      await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
      clock += 61_000;
    }
    const sent = (await trail(d, request.referenceId)).filter((e) => e.action === 'SENT');
    expect(sent).toHaveLength(3);
    expect(d.provider.creates).toHaveLength(3);
  });
});

describe('the writer', () => {
  it('summarises the repeats counted on a record before the record goes', async () => {
    const d = domain();
    const writer = new RecordWriter(d.store);
    const claim = { ...newClaim(merchant.id, mobileRequest(), 'fp', new Date(T0).toISOString()), sending: false };
    await writer.insert(claim);
    const refused: AuditRule = (_before, after) => [
      auditOf(after, AuditAction.PROVIDER_ANSWERED, new Date(T0 + after.checkAttempts).toISOString(), {
        detail: 'refused',
      }),
    ];
    for (let i = 1; i <= 3; i += 1)
      await writer.change(merchant.id, claim.referenceId, (c) => ({ ...c, checkAttempts: i }), refused);
    await writer.remove(
      merchant.id,
      claim.referenceId,
      () => true,
      (c) => [
        auditOf(c, AuditAction.STATUS_CHECKED, new Date(T0 + 10).toISOString(), { status: null, detail: 'gone' }),
      ],
    );
    expect((await trail(d, claim.referenceId)).map((e) => [e.action, e.at, e.detail])).toEqual([
      ['PROVIDER_ANSWERED', new Date(T0 + 1).toISOString(), 'refused'],
      [
        'PROVIDER_ANSWERED',
        new Date(T0 + 3).toISOString(),
        `the same again 2 more times, from ${new Date(T0 + 2).toISOString()} to ${new Date(T0 + 3).toISOString()}: refused`,
      ],
      ['STATUS_CHECKED', new Date(T0 + 10).toISOString(), 'gone'],
    ]);
  });
});

async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
  yield* entries;
}
