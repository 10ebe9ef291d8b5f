import { describeEachEngine } from '../support/modes';
import { CREATE_MOBILE, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';

/**
 * A provider that answers a create 500 at once yet takes it in 1.5 s later (check-status "not found"
 * meanwhile) and pays a repeated referenceId again, behind a gateway that trusts "not found" only 5 s
 * after the last send left (RESEND_AFTER_SECONDS): an unknown outcome, never "failed", never
 * cancelled, paid once; and a scheduled payout's retry after its time answered from the payout.
 */
const INTAKE_MS = 1500;

const FIELDS = 'referenceId status sendAt history { status message }';
const CREATE = `mutation C($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ${FIELDS} } }`;
const CANCEL = `mutation X($r: ID!) { cancelDisbursement(referenceId: $r) { ${FIELDS} } }`;
const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { ${FIELDS} } }`;

interface Payout {
  referenceId: string;
  status: string;
  sendAt: string | null;
  history: { status: string; message: string | null }[];
}
type Answer = { data?: { [op: string]: Payout | null } | null; errors?: { extensions?: { code?: string } }[] };

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describeEachEngine('a provider 500 to a create it is still taking in', (env) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      env: {
        ...env(),
        RESEND_AFTER_SECONDS: '5',
        RECONCILE_INTERVAL_MS: '100',
        RECONCILE_UNKNOWN_AFTER_MS: '200',
      },
      sandbox: { settleMs: 300 },
    });
  });
  afterAll(() => stack.close());
  afterEach(() => stack.sandbox.setFaults({}));

  const faulty = () => stack.sandbox.setFaults({ errorRate: 1, intakeMs: INTAKE_MS, payDuplicates: true });
  const createsOf = (ref: string) => stack.sandbox.stats().createRequestsByReferenceId[ref] ?? 0;
  const paidOf = (ref: string) => stack.sandbox.records().filter((r) => r.referenceId === ref).length;
  const payout = async (ref: string) => ((await gql(stack.graphqlUrl, ONE, { r: ref })) as Answer).data?.disbursement;
  const codeOf = (a: Answer) => a.errors?.[0]?.extensions?.code;

  it('a direct create is answered OUTCOME_UNKNOWN, never "safe to retry"; retries send nothing until it shows; paid once', async () => {
    faulty();
    const input = mobileInput();
    const ref = input.referenceId as string;
    const first = (await gql(stack.graphqlUrl, CREATE_MOBILE, { input })) as Answer;
    expect(codeOf(first)).toBe('OUTCOME_UNKNOWN');
    // From here the provider pays any repeat: a second send would be a second payout.
    stack.sandbox.setFaults({ payDuplicates: true });
    const settled = await eventually(async () => {
      const answer = (await gql(stack.graphqlUrl, CREATE_MOBILE, { input })) as Answer;
      if (codeOf(answer) === 'OUTCOME_UNKNOWN') return undefined;
      return answer;
    }, 200);
    expect(['PENDING', 'SUCCESSFUL']).toContain(settled.data?.createMobileMoneyDisbursement?.status);
    expect(createsOf(ref)).toBe(1);
    expect(paidOf(ref)).toBe(1);
  });

  it('a scheduled payout that met it at its time is not cancellable, never reported CANCELLED, and paid once', async () => {
    const input = mobileInput({ sendAt: inMs(1_000) });
    const ref = input.referenceId as string;
    const created = (await gql(stack.graphqlUrl, CREATE, { input })) as Answer;
    expect(created.data?.createMobileMoneyDisbursement?.status).toBe('SCHEDULED');
    faulty();
    // Its send met the 500 and the gateway has recorded what that means (a second history entry).
    await eventually(async () => ((await payout(ref))?.history.length ?? 0) > 1 || undefined, 200);
    stack.sandbox.setFaults({ payDuplicates: true });
    expect(createsOf(ref)).toBe(1);
    const cancel = (await gql(stack.graphqlUrl, CANCEL, { r: ref })) as Answer;
    expect(cancel.data?.cancelDisbursement?.status).not.toBe('CANCELLED');
    expect(codeOf(cancel)).toBe('INVALID_STATE');
    const final = await eventually(async () => {
      const now = await payout(ref);
      return now?.status === 'SUCCESSFUL' ? now : undefined;
    }, 200);
    expect(final.history.map((h) => h.status)).not.toContain('CANCELLED');
    expect(createsOf(ref)).toBe(1);
    expect(paidOf(ref)).toBe(1);
  });

  it('a retry of a scheduled payout after its sendAt passed is answered with the payout, never BAD_USER_INPUT', async () => {
    const input = mobileInput({ sendAt: inMs(1_000) });
    const ref = input.referenceId as string;
    expect(
      ((await gql(stack.graphqlUrl, CREATE, { input })) as Answer).data?.createMobileMoneyDisbursement?.status,
    ).toBe('SCHEDULED');
    await eventually(async () => ((await payout(ref))?.status === 'SUCCESSFUL' ? true : undefined), 200);
    // Past the 5 s of clock skew a new payout's sendAt may be in the past.
    await eventually(() => (Date.now() > Date.parse(input.sendAt as string) + 6_000 ? true : undefined), 200);
    const retry = (await gql(stack.graphqlUrl, CREATE, { input })) as Answer;
    expect(codeOf(retry)).toBeUndefined();
    expect(retry.data?.createMobileMoneyDisbursement).toMatchObject({ referenceId: ref, status: 'SUCCESSFUL' });
    const fresh = (await gql(stack.graphqlUrl, CREATE, { input: { ...input, referenceId: `${ref}-new` } })) as Answer;
    expect(codeOf(fresh)).toBe('BAD_USER_INPUT');
    expect(createsOf(ref)).toBe(1);
  });
});
