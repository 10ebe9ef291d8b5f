import { fingerprint } from '../../src/disbursements/disbursement.fingerprint';
import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { ProviderError, StoreUnavailableError } from '../../src/disbursements/disbursement.ports';
import { NEVER_RECEIVED, newClaim } from '../../src/disbursements/disbursement.record';
import { CreateScript, domain, merchant, mobileRequest } from '../support/domain';

const fail = (kind: ProviderError['kind'], status?: number, extra: { retryAfter?: number } = {}) =>
  new ProviderError(kind, `provider said ${kind}`, { status, ...extra });

interface Outcome {
  /** The answer's status, or the error code. */
  answer: string;
  /** What the store holds afterwards: a status, `sending` for a claim still in flight, or `none`. */
  stored: string;
  creates: number;
  checks: number;
}

async function run(
  script: CreateScript,
  before?: (d: ReturnType<typeof domain>, request: DisbursementRequest) => void,
): Promise<Outcome> {
  const d = domain();
  const request = mobileRequest();
  d.provider.script.push(script);
  before?.(d, request);
  let answer: string;
  try {
    answer = (await d.service.create(merchant, request)).status;
  } catch (error) {
    answer = (error as { code?: string }).code ?? String(error);
  }
  const record = await d.store.get(merchant.id, request.referenceId);
  const stored = !record ? 'none' : record.sending ? 'sending' : record.status;
  return { answer, stored, creates: d.provider.creates.length, checks: d.provider.checks.length };
}

describe('every outcome of a create', () => {
  it.each<[string, CreateScript, Outcome]>([
    ['2xx Pending', 'Pending', { answer: 'PENDING', stored: 'PENDING', creates: 1, checks: 1 }],
    ['2xx Failed', 'Failed', { answer: 'FAILED', stored: 'FAILED', creates: 1, checks: 1 }],
    [
      '400 for a payout the provider does not have',
      { fail: fail('rejected', 400), stores: false },
      { answer: 'BAD_USER_INPUT', stored: 'none', creates: 1, checks: 2 },
    ],
    [
      '401',
      { fail: fail('auth', 401), stores: false },
      { answer: 'UPSTREAM_AUTH_FAILED', stored: 'none', creates: 1, checks: 1 },
    ],
    [
      '403',
      { fail: fail('auth', 403), stores: false },
      { answer: 'UPSTREAM_AUTH_FAILED', stored: 'none', creates: 1, checks: 1 },
    ],
    [
      '429',
      { fail: fail('rate-limited', 429, { retryAfter: 7 }), stores: false },
      { answer: 'RATE_LIMITED', stored: 'none', creates: 1, checks: 1 },
    ],
    [
      'unreachable before sending',
      { fail: fail('unavailable'), stores: false },
      { answer: 'UPSTREAM_UNAVAILABLE', stored: 'none', creates: 1, checks: 1 },
    ],
    [
      "the gateway's own store cannot spend the provider budget, before sending",
      { fail: new StoreUnavailableError('the provider budget cannot be read right now'), stores: false },
      { answer: 'SERVICE_UNAVAILABLE', stored: 'none', creates: 1, checks: 1 },
    ],
    [
      '5xx, and the provider has it',
      { fail: fail('server-error', 500), stores: true },
      { answer: 'PENDING', stored: 'PENDING', creates: 1, checks: 2 },
    ],
    [
      '5xx, and the provider does not show it (it may still be taking it in)',
      { fail: fail('server-error', 500), stores: false },
      { answer: 'OUTCOME_UNKNOWN', stored: 'UNKNOWN', creates: 1, checks: 2 },
    ],
    [
      'timeout',
      { fail: fail('unknown'), stores: true },
      { answer: 'OUTCOME_UNKNOWN', stored: 'UNKNOWN', creates: 1, checks: 1 },
    ],
    [
      'reset after sending',
      { fail: fail('unknown'), stores: false },
      { answer: 'OUTCOME_UNKNOWN', stored: 'UNKNOWN', creates: 1, checks: 1 },
    ],
    [
      'malformed 2xx',
      { fail: new ProviderError('unknown', 'provider answered 200 with an unreadable record'), stores: true },
      { answer: 'OUTCOME_UNKNOWN', stored: 'UNKNOWN', creates: 1, checks: 1 },
    ],
  ])('%s', async (_name, script, expected) => {
    expect(await run(script)).toEqual(expected);
  });

  it('5xx and a failing check-status: OUTCOME_UNKNOWN, kept UNKNOWN', async () => {
    const outcome = await run(
      { fail: fail('server-error', 502), stores: true },
      // The ask before the send answers; the checks after the 5xx fail.
      (d) => (d.provider.onCreate = () => (d.provider.checkFailure = fail('unavailable'))),
    );
    expect(outcome).toEqual({ answer: 'OUTCOME_UNKNOWN', stored: 'UNKNOWN', creates: 1, checks: 2 });
  });

  it('400 for a referenceId the provider already has with the same content (a lost claim): its payout, never BAD_USER_INPUT', async () => {
    // It shows only once the send is on its way (another path sent it meanwhile), so the ask before it finds nothing.
    const outcome = await run(
      'Pending',
      (d, request) => (d.provider.onCreate = () => d.provider.have(request, 'Pending')),
    );
    expect(outcome).toEqual({ answer: 'PENDING', stored: 'PENDING', creates: 1, checks: 2 });
  });

  it('400 for a referenceId the provider has with other content: REFERENCE_CONFLICT naming the fields', async () => {
    const d = domain();
    const request = mobileRequest();
    d.provider.onCreate = () =>
      d.provider.have({ ...request, amount: '5', accountNumber: '260970000001' }, 'Successful');
    await expect(d.service.create(merchant, request)).rejects.toMatchObject({
      code: 'REFERENCE_CONFLICT',
      details: { fields: ['input.amount', 'input.accountNumber'] },
    });
    // The record is the provider's payout now, and the same request keeps getting the same answer.
    // The store keeps the record as JSON, so an unset field is absent rather than undefined.
    const stored = await d.store.get(merchant.id, request.referenceId);
    expect(stored).toMatchObject({ status: 'SUCCESSFUL', amount: '5' });
    expect(stored?.request).toBeUndefined();
    await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'REFERENCE_CONFLICT' });
    expect(d.provider.creates).toHaveLength(1);
  });

  it('gives the identifier of the payout the provider already had', async () => {
    const d = domain();
    const request = mobileRequest();
    const theirs = d.provider.have(request, 'Pending');
    const record = await d.service.create(merchant, request);
    expect(record.identifier).toBe(theirs.identifier);
    expect(record.history.map((h) => [h.status, h.source])).toEqual([['PENDING', 'STATUS_CHECK']]);
  });
});

describe('a payout a client saw as UNKNOWN', () => {
  it('is kept when a retry is refused with nothing sent, so its versions only grow and watchers miss no state', async () => {
    let clock = Date.now();
    const d = domain({ now: () => new Date(clock) });
    const request = mobileRequest();
    d.provider.script.push({ fail: fail('unknown'), stores: false }, { fail: fail('rejected', 400), stores: false });
    await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    // Once RESEND_AFTER_SECONDS have passed, the retry asks the provider (it has nothing), sends again, and is refused.
    clock += 60_000;
    await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    const kept = await d.store.get(merchant.id, request.referenceId);
    expect(kept).toMatchObject({ status: 'UNKNOWN', sending: false });
    expect(kept?.history.at(-1)?.message).toBe(NEVER_RECEIVED);
    // The same request again is sent, as "never received" promises.
    await expect(d.service.create(merchant, request)).resolves.toMatchObject({ status: 'PENDING' });
    const versions = d.published.filter((r) => r.referenceId === request.referenceId).map((r) => r.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(d.provider.creates).toHaveLength(3);
  });
});

describe('a claim another process left', () => {
  function claim(request: DisbursementRequest, ageMs: number, patch: Partial<Disbursement> = {}): Disbursement {
    const at = new Date(Date.now() - ageMs).toISOString();
    return { ...newClaim(merchant.id, request, fingerprint(request), at), due: { kind: 'RECHECK', at: at }, ...patch };
  }

  it.each([
    ['stale, the provider never saw it: sent once', false, { status: 'PENDING', creates: 1 }],
    ['stale, the provider has it: its record, nothing sent', true, { status: 'PENDING', creates: 0 }],
  ])('%s', async (_name, providerHasIt, expected) => {
    const d = domain({ upstreamTimeoutMs: 100 });
    const request = mobileRequest();
    await d.store.insertIfAbsent(claim(request, 10_000));
    if (providerHasIt) d.provider.have(request, 'Pending');
    const record = await d.service.create(merchant, request);
    expect({ status: record.status, creates: d.provider.creates.length }).toEqual(expected);
    // The stale claim's own check, and before a send the ask every send makes.
    expect(d.provider.checks).toHaveLength(1 + expected.creates);
  });

  it('still in flight but already final (its callback came): answered at once, without waiting or sending', async () => {
    const d = domain({ upstreamTimeoutMs: 60_000 }); // waiting for it to go stale would take two minutes
    const request = mobileRequest();
    await d.store.insertIfAbsent(claim(request, 10, { status: 'SUCCESSFUL', version: 1 }));
    const record = await d.service.create(merchant, request);
    expect(record.status).toBe('SUCCESSFUL');
    expect(d.provider.creates).toHaveLength(0);
  });
});

describe('an orphan (a payout first learnt from a callback)', () => {
  function orphan(request: DisbursementRequest, patch: Partial<Disbursement> = {}): Disbursement {
    const { request: _r, fingerprint: _f, ...record } = newClaim(merchant.id, request, 'x', new Date().toISOString());
    return { ...record, sending: false, status: 'SUCCESSFUL', version: 1, ...patch };
  }

  it('confirmed by the provider with the same content: adopted, never sent', async () => {
    const d = domain();
    const request = mobileRequest();
    await d.store.insertIfAbsent(orphan(request, { status: 'PENDING' }));
    d.provider.have(request, 'Successful');
    const record = await d.service.create(merchant, request);
    expect(record).toMatchObject({ status: 'SUCCESSFUL', fingerprint: fingerprint(request) });
    expect(d.provider.creates).toHaveLength(0);
    expect(d.provider.checks).toHaveLength(1);
  });

  it('forged (the provider never saw it): dropped, and the create is sent', async () => {
    const d = domain();
    const request = mobileRequest({ amount: '900' });
    await d.store.insertIfAbsent(orphan({ ...request, amount: '5', accountNumber: '260970000001' }));
    const record = await d.service.create(merchant, request);
    expect(record).toMatchObject({ status: 'PENDING', amount: '900' });
    expect(d.provider.creates).toHaveLength(1);
  });

  it('the provider has it with other content: REFERENCE_CONFLICT, nothing sent', async () => {
    const d = domain();
    const request = mobileRequest({ amount: '900' });
    await d.store.insertIfAbsent(orphan(request));
    d.provider.have({ ...request, amount: '5' }, 'Successful');
    await expect(d.service.create(merchant, request)).rejects.toMatchObject({
      code: 'REFERENCE_CONFLICT',
      details: { fields: ['input.amount'] },
    });
    expect(d.provider.creates).toHaveLength(0);
  });
});

describe('shutdown', () => {
  it('answers a create still running after the grace OUTCOME_UNKNOWN and leaves its claim for the rechecker', async () => {
    const d = domain();
    const request = mobileRequest();
    d.provider.script.push('hang');
    const answer = d.service.create(merchant, request);
    await new Promise((r) => setTimeout(r, 20));
    await d.service.drain(10);
    await expect(answer).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(await d.store.get(merchant.id, request.referenceId)).toMatchObject({ status: 'UNKNOWN', sending: true });
  });

  it('lets a create that answers within the grace finish', async () => {
    const d = domain();
    const answer = d.service.create(merchant, mobileRequest());
    await d.service.drain(1000);
    expect((await answer).status).toBe('PENDING');
  });
});
