import { DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { ProviderError, StoreUnavailableError } from '../../src/disbursements/disbursement.ports';
import { domain, merchant, mobileRequest } from '../support/domain';

/**
 * A referenceId the database does not know is no proof that the payout was never sent: the database may
 * have gone back in time (a restore, a failover, an older copy of the file), noticed or not. So every
 * send asks the provider first, and after a rewind that was noticed its "not found" means "never
 * received" only once RESEND_AFTER_SECONDS have passed since. The provider here pays a repeated
 * referenceId again, so every create it receives for a payout it already has would pay twice.
 */
const RESEND_MS = 60_000;
const REWOUND = Date.parse('2026-11-25T10:00:00Z');

type ProviderHas = 'it' | 'nothing' | 'another payout' | 'cannot be asked' | 'the gateway cannot spend its budget';

function setup(rewoundAt: number | undefined, afterMs: number) {
  const clock = { at: REWOUND + afterMs };
  const d = domain({
    resendAfterMs: RESEND_MS,
    rewoundAt: () => rewoundAt,
    now: () => new Date(clock.at),
  });
  d.provider.paysRepeats = true;
  return { d, clock, request: mobileRequest() };
}

function given(d: ReturnType<typeof setup>['d'], request: DisbursementRequest, has: ProviderHas) {
  if (has === 'it') d.provider.have(request, 'Pending');
  if (has === 'another payout') d.provider.have({ ...request, amount: '9.00' }, 'Pending');
  if (has === 'cannot be asked') d.provider.checkFailure = new ProviderError('unavailable', 'connection refused');
  // The provider budget lives in the gateway's own store: a full disk or an absent database is the gateway's fault.
  if (has === 'the gateway cannot spend its budget')
    d.provider.checkFailure = new StoreUnavailableError('the provider budget cannot be read right now');
}

async function answerOf(promise: Promise<{ status: string }>): Promise<string> {
  try {
    return (await promise).status;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe('a create of a referenceId the database does not know, asked at the provider before it is sent', () => {
  it.each<[string, number | undefined, number, ProviderHas, { answer: string; creates: number; checks: number }]>([
    [
      'the provider has it (sent before the restore): adopted, nothing sent',
      REWOUND,
      1_000,
      'it',
      { answer: 'PENDING', creates: 0, checks: 1 },
    ],
    [
      'the provider has it, six days later: adopted',
      REWOUND,
      6 * 86_400_000,
      'it',
      { answer: 'PENDING', creates: 0, checks: 1 },
    ],
    [
      'nothing yet, just after: OUTCOME_UNKNOWN, nothing sent',
      REWOUND,
      1_000,
      'nothing',
      { answer: 'OUTCOME_UNKNOWN', creates: 0, checks: 1 },
    ],
    [
      'nothing, just before RESEND_AFTER_SECONDS: still nothing sent',
      REWOUND,
      RESEND_MS - 1,
      'nothing',
      { answer: 'OUTCOME_UNKNOWN', creates: 0, checks: 1 },
    ],
    [
      'nothing, at RESEND_AFTER_SECONDS: never received, sent',
      REWOUND,
      RESEND_MS,
      'nothing',
      { answer: 'PENDING', creates: 1, checks: 1 },
    ],
    [
      'another payout under it: REFERENCE_CONFLICT, nothing sent',
      REWOUND,
      1_000,
      'another payout',
      { answer: 'REFERENCE_CONFLICT', creates: 0, checks: 1 },
    ],
    [
      'the provider cannot be asked: UPSTREAM_UNAVAILABLE, nothing sent',
      REWOUND,
      RESEND_MS,
      'cannot be asked',
      { answer: 'UPSTREAM_UNAVAILABLE', creates: 0, checks: 1 },
    ],
    [
      "the gateway's own store cannot spend the provider budget: SERVICE_UNAVAILABLE, nothing sent",
      undefined,
      1_000,
      'the gateway cannot spend its budget',
      { answer: 'SERVICE_UNAVAILABLE', creates: 0, checks: 1 },
    ],
    [
      'a rewind long ago, nothing there: sent after asking',
      REWOUND,
      30 * 86_400_000,
      'nothing',
      { answer: 'PENDING', creates: 1, checks: 1 },
    ],
    [
      'no rewind noticed, nothing there: sent after asking',
      undefined,
      1_000,
      'nothing',
      { answer: 'PENDING', creates: 1, checks: 1 },
    ],
    [
      'no rewind noticed, the provider has it: adopted, nothing sent',
      undefined,
      1_000,
      'it',
      { answer: 'PENDING', creates: 0, checks: 1 },
    ],
    [
      'no rewind noticed, another payout under it: REFERENCE_CONFLICT',
      undefined,
      1_000,
      'another payout',
      { answer: 'REFERENCE_CONFLICT', creates: 0, checks: 1 },
    ],
    [
      'no rewind noticed, the provider cannot be asked: UPSTREAM_UNAVAILABLE, nothing sent',
      undefined,
      1_000,
      'cannot be asked',
      { answer: 'UPSTREAM_UNAVAILABLE', creates: 0, checks: 1 },
    ],
  ])('%s', async (_name, rewoundAt, afterMs, has, expected) => {
    const { d, request } = setup(rewoundAt, afterMs);
    given(d, request, has);
    expect(await answerOf(d.service.create(merchant, request))).toBe(expected.answer);
    expect(d.provider.creates.length).toBe(expected.creates);
    expect(d.provider.checks.length).toBe(expected.checks);
  });

  it('a payout still being taken in: every retry is OUTCOME_UNKNOWN until it shows, then it is the answer; sent never', async () => {
    const { d, clock, request } = setup(REWOUND, 1_000);
    expect(await answerOf(d.service.create(merchant, request))).toBe('OUTCOME_UNKNOWN');
    clock.at += 5_000;
    expect(await answerOf(d.service.create(merchant, request))).toBe('OUTCOME_UNKNOWN');
    d.provider.have(request, 'Successful');
    expect(await answerOf(d.service.create(merchant, request))).toBe('SUCCESSFUL');
    expect(d.provider.creates.length).toBe(0);
  });

  it('one the provider never shows is sent once by a retry after RESEND_AFTER_SECONDS, never before', async () => {
    const { d, clock, request } = setup(REWOUND, 1_000);
    expect(await answerOf(d.service.create(merchant, request))).toBe('OUTCOME_UNKNOWN');
    clock.at += RESEND_MS - 2_000;
    expect(await answerOf(d.service.create(merchant, request))).toBe('OUTCOME_UNKNOWN');
    clock.at += 2_000;
    expect(await answerOf(d.service.create(merchant, request))).toBe('PENDING');
    expect(await answerOf(d.service.create(merchant, request))).toBe('PENDING');
    expect(d.provider.creates.length).toBe(1);
  });
});

describe('the provider refuses a repeated referenceId it does not show yet', () => {
  it.each<[string, ProviderError, string]>([
    [
      'a 400 naming referenceId: the payout may exist, OUTCOME_UNKNOWN (never BAD_USER_INPUT)',
      new ProviderError('rejected', 'referenceId already used', { status: 400, field: 'referenceId' }),
      'OUTCOME_UNKNOWN',
    ],
    [
      'a 400 about another field: the request is wrong, BAD_USER_INPUT',
      new ProviderError('rejected', 'amount is invalid', { status: 400, field: 'amount' }),
      'BAD_USER_INPUT',
    ],
  ])('%s', async (_name, refusal, answer) => {
    const { d, request } = setup(undefined, 0);
    d.provider.script.push({ fail: refusal, stores: false });
    expect(await answerOf(d.service.create(merchant, request))).toBe(answer);
    expect(d.provider.creates.length).toBe(1);
  });
});
