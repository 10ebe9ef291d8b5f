import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { Actor } from '../../src/disbursements/payout.controls';
import { Domain, domain, merchant, mobileRequest } from '../support/domain';

/**
 * A provider 500 to a create, while the provider is still taking that create in (check-status "not
 * found" at once, the payout there 1.5 s later): on every path that sends, the payout stays UNKNOWN,
 * is neither cancellable nor sent again inside RESEND_AFTER_SECONDS, and is adopted once it shows.
 */
const WINDOW_MS = 60_000;
const INTAKE_MS = 1_500;
const T0 = Date.parse('2026-11-27T10:00:00Z');
const SEND_AT = T0 + 10_000;
const alice: Actor = { id: 'alice', name: 'alice' };
const bob: Actor = { id: 'bob', name: 'bob' };
const controlled: Merchant = {
  ...merchant,
  id: 'm-server-error',
  controls: { approvalAbove: { ZMW: '5000' }, approvalTtlSeconds: 3600 },
};

interface Setup {
  d: Domain;
  clock: { at: number };
}

const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error);

async function answerOf(promise: Promise<Disbursement>): Promise<string> {
  try {
    return (await promise).status;
  } catch (error) {
    return codeOf(error);
  }
}

/** One round of the rechecker's due loop, as each replica runs it: lease, then the step. */
async function recheckRound({ d, clock }: Setup, m: Merchant): Promise<void> {
  for (const record of await d.store.due(new Date(clock.at), 100)) {
    const taken = await d.service.lease(record, new Date(clock.at + 30_000));
    if (taken) await d.service.runDue(m, taken);
  }
}

const serverError = () =>
  new ProviderError('server-error', 'provider answered 500: Internal server error', { status: 500 });

interface SendPath {
  merchant: Merchant;
  request: DisbursementRequest;
  /** Whatever comes before the send (stored, nothing sent yet). */
  prepare(s: Setup): Promise<void>;
  /** The path's send, which meets the 500; answers what its caller is told. */
  send(s: Setup): Promise<string>;
  /** The same path again (a client's retry). */
  retry(s: Setup): Promise<string>;
}

function direct(): SendPath {
  const request = mobileRequest();
  const create = (s: Setup) => answerOf(s.d.service.create(merchant, request));
  return { merchant, request, prepare: async () => undefined, send: create, retry: create };
}

function batchItem(): SendPath {
  const request = mobileRequest();
  const batch = async (s: Setup) => {
    const [result] = await s.d.service.createMany(merchant, [{ referenceId: request.referenceId, request }]);
    return 'record' in result ? result.record.status : result.error.code;
  };
  return { merchant, request, prepare: async () => undefined, send: batch, retry: batch };
}

function approved(): SendPath {
  const request = mobileRequest({ amount: '6000' });
  return {
    merchant: controlled,
    request,
    prepare: async (s) => {
      expect((await s.d.service.create(controlled, request, undefined, alice)).status).toBe('AWAITING_APPROVAL');
    },
    send: (s) => answerOf(s.d.service.approve(controlled, request.referenceId, bob)),
    retry: (s) => answerOf(s.d.service.create(controlled, request, undefined, alice)),
  };
}

function beneficiary(): SendPath {
  const request = mobileRequest();
  let beneficiaryId = '';
  const pay = (s: Setup) =>
    answerOf(
      s.d.service.payBeneficiary(
        merchant,
        { beneficiaryId, referenceId: request.referenceId, build: () => request },
        undefined,
        alice,
      ),
    );
  return {
    merchant,
    request,
    prepare: async (s) => {
      const details = { channel: 'MOBILE_MONEY' as const, accountNumber: request.accountNumber };
      const created = await s.d.service.createBeneficiary(merchant, { name: 'Supplier', details }, alice);
      beneficiaryId = created.id;
    },
    send: pay,
    retry: pay,
  };
}

function scheduled(): SendPath {
  const request = mobileRequest({ sendAt: new Date(SEND_AT).toISOString() });
  return {
    merchant,
    request,
    prepare: async (s) => {
      expect((await s.d.service.create(merchant, request)).status).toBe('SCHEDULED');
      s.clock.at = SEND_AT;
    },
    send: async (s) => {
      await recheckRound(s, merchant);
      return ((await s.d.store.get(merchant.id, request.referenceId)) as Disbursement).status;
    },
    // Its sendAt has passed by now: the retry is answered from the payout all the same.
    retry: (s) => answerOf(s.d.service.create(merchant, request)),
  };
}

describe('a provider 500 to a create it is still taking in', () => {
  it.each<[string, () => SendPath, string]>([
    ['a direct create: OUTCOME_UNKNOWN, never "failed, safe to retry"', direct, 'OUTCOME_UNKNOWN'],
    ['a batch item: OUTCOME_UNKNOWN', batchItem, 'OUTCOME_UNKNOWN'],
    ['an approval’s send: OUTCOME_UNKNOWN, not back to awaiting approval', approved, 'OUTCOME_UNKNOWN'],
    ['a payment to a beneficiary: OUTCOME_UNKNOWN', beneficiary, 'OUTCOME_UNKNOWN'],
    ['a scheduled payout at its time: UNKNOWN, not SCHEDULED again', scheduled, 'UNKNOWN'],
  ])('%s; not cancellable, not sent again, adopted once it shows', async (_name, makePath, told) => {
    const clock = { at: T0 };
    const s: Setup = { d: domain({ resendAfterMs: WINDOW_MS, now: () => new Date(clock.at) }), clock };
    const path = makePath();
    const { referenceId } = path.request;
    await path.prepare(s);
    const sentAt = clock.at;
    s.d.provider.script.push({ fail: serverError(), stores: false });
    expect(await path.send(s)).toBe(told);
    expect(s.d.provider.checks).toContain(referenceId);
    expect((await s.d.store.get(path.merchant.id, referenceId))?.status).toBe('UNKNOWN');
    expect(codeOf(await s.d.service.cancel(path.merchant, referenceId, bob, true).catch((e: unknown) => e))).toBe(
      'INVALID_STATE',
    );
    // Still being taken in: the rechecker and the client's retries hear "not found" and send nothing.
    for (const after of [500, 1_000, INTAKE_MS - 1]) {
      clock.at = sentAt + after;
      await recheckRound(s, path.merchant);
      expect(await path.retry(s)).toBe('OUTCOME_UNKNOWN');
    }
    // Taken in: the rechecker's next look (still inside the window) adopts it.
    s.d.provider.have(path.request, 'Pending');
    clock.at = sentAt + WINDOW_MS / 2;
    await recheckRound(s, path.merchant);
    expect((await s.d.store.get(path.merchant.id, referenceId))?.status).toBe('PENDING');
    expect(await path.retry(s)).toBe('PENDING');
    expect(s.d.provider.creates).toHaveLength(1);
    const history = ((await s.d.store.get(path.merchant.id, referenceId)) as Disbursement).history;
    expect(history.map((h) => h.status)).not.toContain('CANCELLED');
  });

  it('and the provider never takes it in: "never received" only after RESEND_AFTER_SECONDS, then the same request sends it', async () => {
    const clock = { at: T0 };
    const s: Setup = { d: domain({ resendAfterMs: WINDOW_MS, now: () => new Date(clock.at) }), clock };
    const request = mobileRequest();
    s.d.provider.script.push({ fail: serverError(), stores: false });
    expect(await answerOf(s.d.service.create(merchant, request))).toBe('OUTCOME_UNKNOWN');
    clock.at = T0 + WINDOW_MS - 1;
    expect(await answerOf(s.d.service.create(merchant, request))).toBe('OUTCOME_UNKNOWN');
    expect(s.d.provider.creates).toHaveLength(1);
    clock.at = T0 + WINDOW_MS;
    expect(await answerOf(s.d.service.create(merchant, request))).toBe('PENDING');
    expect(s.d.provider.creates).toHaveLength(2);
  });
});

describe('a retry of a scheduled payout after its sendAt passed', () => {
  it.each<[string, (s: Setup, request: DisbursementRequest) => Promise<void>, string]>([
    ['still SCHEDULED (its send not yet run)', async () => undefined, 'SCHEDULED'],
    [
      'sent and answered',
      async (s) => {
        await recheckRound(s, merchant);
      },
      'PENDING',
    ],
    [
      'cancelled before its time',
      async (s, request) => {
        s.clock.at = T0;
        await s.d.service.cancel(merchant, request.referenceId, bob, false);
        s.clock.at = SEND_AT + 60_000;
      },
      'CANCELLED',
    ],
  ])('%s: answered from the payout, never BAD_USER_INPUT', async (_name, before, status) => {
    const clock = { at: T0 };
    const s: Setup = { d: domain({ now: () => new Date(clock.at) }), clock };
    const request = mobileRequest({ sendAt: new Date(SEND_AT).toISOString() });
    await s.d.service.create(merchant, request);
    clock.at = SEND_AT + 60_000;
    await before(s, request);
    expect(await answerOf(s.d.service.create(merchant, { ...request }))).toBe(status);
    expect(await answerOf(s.d.service.create(merchant, mobileRequest({ sendAt: request.sendAt })))).toBe(
      'BAD_USER_INPUT',
    );
  });
});
