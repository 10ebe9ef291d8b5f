import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';

/**
 * A provider that takes 2.5 s to take a create in (check-status answers 404 meanwhile) and pays a
 * repeated referenceId again instead of refusing it, behind a gateway that gives up on a call after
 * 1 s and trusts "not found" only 5 s after the last send left (RESEND_AFTER_SECONDS).
 */
const RESEND_AFTER_MS = 5000;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    env: {
      UPSTREAM_TIMEOUT_MS: '1000',
      RESEND_AFTER_SECONDS: String(RESEND_AFTER_MS / 1000),
      RECONCILE_INTERVAL_MS: '100',
      RECONCILE_UNKNOWN_AFTER_MS: '200',
    },
    sandbox: { settleMs: 60_000 },
  });
});
afterAll(() => stack.close());
afterEach(() => stack.sandbox.setFaults({}));

type Answer = {
  data?: { createMobileMoneyDisbursement?: { status: string } | null } | null;
  errors?: { extensions?: { code?: string } }[];
};
const outcome = (a: Answer) => a.errors?.[0]?.extensions?.code ?? a.data?.createMobileMoneyDisbursement?.status;

async function create(input: Record<string, unknown>): Promise<string | undefined> {
  return outcome(await gql(stack.graphqlUrl, CREATE_MOBILE, { input }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const createsOf = (ref: string) => stack.sandbox.stats().createRequestsByReferenceId[ref] ?? 0;
const paidOf = (ref: string) => stack.sandbox.records().filter((r) => r.referenceId === ref).length;

describe('a provider slow to take a create in, that pays a repeated referenceId again', () => {
  it('receives one create and pays once, however often and however soon the client retries', async () => {
    stack.sandbox.setFaults({ intakeMs: 2500, payDuplicates: true });
    const input = mobileInput();
    const ref = input.referenceId as string;
    expect(await create(input)).toBe('OUTCOME_UNKNOWN');
    let answer = 'OUTCOME_UNKNOWN';
    for (let i = 0; i < 120 && answer === 'OUTCOME_UNKNOWN'; i += 1) {
      await sleep(250);
      answer = (await create(input)) ?? 'NONE';
    }
    expect(['PENDING', 'SUCCESSFUL']).toContain(answer);
    expect(createsOf(ref)).toBe(1);
    expect(stack.sandbox.stats().duplicateCreatesByReferenceId[ref]).toBeUndefined();
    expect(paidOf(ref)).toBe(1);
  });

  it('receives one create when the client retries only after the rechecker asked and heard "not found"', async () => {
    stack.sandbox.setFaults({ intakeMs: 2500, payDuplicates: true });
    const input = mobileInput();
    const ref = input.referenceId as string;
    const checksBefore = stack.sandbox.stats().statusRequests;
    expect(await create(input)).toBe('OUTCOME_UNKNOWN');
    await eventually(() => (stack.sandbox.stats().statusRequests > checksBefore ? true : undefined), 200, 50);
    expect(['OUTCOME_UNKNOWN', 'PENDING']).toContain(await create(input));
    const settled = await eventually(async () => {
      const res = await gql<{ disbursement: { status: string } | null }>(
        stack.graphqlUrl,
        'query Q($id: ID!) { disbursement(referenceId: $id) { status } }',
        { id: ref },
      );
      const status = res.data?.disbursement?.status;
      return status === 'PENDING' || status === 'SUCCESSFUL' ? status : undefined;
    }, 400);
    expect(settled).toBe('PENDING');
    expect(createsOf(ref)).toBe(1);
    expect(paidOf(ref)).toBe(1);
  });
});

describe('a create that vanishes (never stored, never answered)', () => {
  it('is not sent again inside the window, and is sent again by a retry after it', async () => {
    stack.sandbox.setFaults({ vanishRate: 1 });
    const input = mobileInput();
    const ref = input.referenceId as string;
    const sentAt = Date.now();
    expect(await create(input)).toBe('OUTCOME_UNKNOWN');
    stack.sandbox.setFaults({});
    // Retries inside the window ask the provider, hear "not found", and send nothing.
    let answer = await create(input);
    let inside = 0;
    while (answer === 'OUTCOME_UNKNOWN' && inside < 200) {
      expect(createsOf(ref)).toBe(1);
      inside += 1;
      await sleep(250);
      answer = await create(input);
    }
    expect(inside).toBeGreaterThan(0);
    expect(answer).toBe('PENDING');
    expect(createsOf(ref)).toBe(2);
    // The second send cannot have left before the window had passed since the first.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(RESEND_AFTER_MS);
    expect(paidOf(ref)).toBe(1);
  });
});
