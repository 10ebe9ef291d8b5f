import { randomUUID } from 'node:crypto';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { approvalTokens, QUICK_RECOVERY_ENV, sharedProvider } from '../support/replicas';
import { PayoutRow } from '../support/fixtures';
import { CREATE_MOBILE, DISBURSEMENT_FIELDS, eventually, gql, mobileInput } from '../support/stack';

/** A payout under payout controls, with the approval FIELDS select. */
type PayoutWithApproval = PayoutRow & { approval: { requestedBy: string; decision: string | null } | null };
const REQUESTER = 'tok_db_restart_requester_0123456789abcdef';
const APPROVER = 'tok_db_restart_approver_0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const FIELDS = `${DISBURSEMENT_FIELDS} approval { requestedBy decidedBy decision decidedAt expiresAt }`;
const HISTORY = `query H($prefix: String) {
  disbursementHistory(first: 10, filter: { referenceIdPrefix: $prefix }) { totalCount edges { node { ${FIELDS} } } }
}`;
const APPROVE = `mutation A($r: ID!) { approveDisbursement(referenceId: $r) { referenceId status approval { decision } } }`;
const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { status } }`;
/** The provider takes the create killed in flight in only after this long; meanwhile it answers "not found". */
const INTAKE_MS = 12_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two gateway processes over one database, both killed (SIGKILL: no drain, no goodbye) and
 * started again: what was stored is all there, and nothing is sent twice.
 */
describeEachEngine(
  'two gateway processes killed and started again',
  (databaseEnv) => {
    let sandbox: SandboxHandle;
    let env: Record<string, string>;

    beforeAll(async () => {
      const shared = await sharedProvider(databaseEnv(), { settleMs: 300, callbackRetryBaseMs: 50 });
      sandbox = shared.sandbox;
      env = {
        ...shared.env,
        // A call the provider has not answered in 1 s is unknown; its claim is stale (its process gone) after 2 s.
        ...QUICK_RECOVERY_ENV,
        ...approvalTokens(REQUESTER, APPROVER),
        // Longer than the provider's intake: its "not found" must not be trusted before it has taken the create in.
        RESEND_AFTER_SECONDS: '30',
        RECONCILE_PENDING_AFTER_MS: '600000',
      };
    });

    afterAll(async () => {
      await sandbox?.close();
    });

    /** Two replicas, started side by side; each is the provider's callback address for what it sends. */
    const replicas = () => Promise.all([launchGateway(env), launchGateway(env)]);
    const create = (on: GatewayProcess, input: Record<string, unknown>) =>
      gql<{ createMobileMoneyDisbursement: PayoutWithApproval }>(
        on.graphqlUrl,
        CREATE_MOBILE,
        { input },
        as(REQUESTER),
      );
    const listed = async (on: GatewayProcess, prefix: string) =>
      (
        await gql<{ disbursementHistory: { totalCount: number; edges: { node: PayoutWithApproval }[] } }>(
          on.graphqlUrl,
          HISTORY,
          { prefix },
          as(REQUESTER),
        )
      ).data?.disbursementHistory;
    const statusOf = async (on: GatewayProcess, ref: string) =>
      (await gql<{ disbursement: { status: string } | null }>(on.graphqlUrl, ONE, { r: ref }, as(REQUESTER))).data
        ?.disbursement?.status;
    const sentOf = (ref: string) => sandbox.stats().createRequestsByReferenceId[ref] ?? 0;

    it('keeps every payout, its history and a held approval; the approval then sends once; a create killed in flight is never sent again', async () => {
      sandbox.setFaults({ payDuplicates: true });
      const prefix = `restart-${randomUUID()}-`;
      const ref = (name: string) => `${prefix}${name}`;
      const [a, b] = await replicas();
      const held = mobileInput({ referenceId: ref('held'), amount: '5000.00' });
      const inputs = [
        mobileInput({ referenceId: ref('paid') }),
        mobileInput({ referenceId: ref('failed'), accountNumber: '260971234000' }),
        mobileInput({ referenceId: ref('pending'), accountNumber: '260971234222' }),
        held,
      ];
      const created = await Promise.all(inputs.map((input, i) => create(i % 2 ? a : b, input)));
      expect(created.map((x) => x.data?.createMobileMoneyDisbursement.status)).toEqual([
        'PENDING',
        'PENDING',
        'PENDING',
        'AWAITING_APPROVAL',
      ]);
      await eventually(async () => ((await statusOf(a, ref('paid'))) === 'SUCCESSFUL' ? true : undefined));
      await eventually(async () => ((await statusOf(a, ref('failed'))) === 'FAILED' ? true : undefined));
      const before = await listed(a, prefix);
      expect(before?.totalCount).toBe(4);
      expect(before?.edges.find((e) => e.node.referenceId === held.referenceId)?.node.approval).toMatchObject({
        requestedBy: 'token-1',
        decision: null,
      });

      // A create the provider is still taking in when both processes die.
      sandbox.setFaults({ payDuplicates: true, intakeMs: INTAKE_MS });
      const inFlight = mobileInput({ referenceId: `inflight-${randomUUID()}` });
      const inFlightRef = inFlight.referenceId as string;
      const lost = create(a, inFlight).then(
        () => 'answered',
        () => 'connection lost',
      );
      await eventually(() => (sentOf(inFlightRef) === 1 ? true : undefined), 200, 10);
      a.child.kill('SIGKILL');
      b.child.kill('SIGKILL');
      expect(await lost).toBe('connection lost');
      await Promise.all([a.stop(), b.stop()]);
      sandbox.setFaults({ payDuplicates: true });

      const [a2, b2] = await replicas();
      for (const on of [a2, b2]) expect(await listed(on, prefix)).toEqual(before);

      // The approval, raced on both replicas, sends the held payout once.
      const approvals = await Promise.all(
        [a2, b2, a2, b2].map((on) =>
          gql<{ approveDisbursement: PayoutWithApproval }>(
            on.graphqlUrl,
            APPROVE,
            { r: held.referenceId },
            as(APPROVER),
          ),
        ),
      );
      // Each gets the approved payout as the one send left it (its callback may already have come).
      const sent = { referenceId: held.referenceId, status: expect.stringMatching(/^(PENDING|SUCCESSFUL)$/) };
      expect(approvals.map((x) => x.data?.approveDisbursement)).toEqual(
        Array(4).fill({ ...sent, approval: { decision: 'APPROVED' } }),
      );
      expect(sentOf(held.referenceId as string)).toBe(1);

      // Retries of the killed create while the provider still answers "not found": nothing is sent again,
      // until the provider has taken the first one in and the retry gets its record.
      const answers: string[] = [];
      for (let i = 0; i < 200; i += 1) {
        const answer = await create(i % 2 ? a2 : b2, inFlight);
        const code = answer.errors?.[0]?.extensions?.code;
        answers.push(typeof code === 'string' ? code : String(answer.data?.createMobileMoneyDisbursement.status));
        expect(sentOf(inFlightRef)).toBe(1);
        if (['PENDING', 'SUCCESSFUL'].includes(answers[answers.length - 1])) break;
        await sleep(250);
      }
      expect(answers).toContain('OUTCOME_UNKNOWN');
      expect(['PENDING', 'SUCCESSFUL']).toContain(answers[answers.length - 1]);
      expect(new Set(answers)).toEqual(new Set(['OUTCOME_UNKNOWN', answers[answers.length - 1]]));
      const stats = sandbox.stats();
      expect(stats.payoutsByReferenceId[inFlightRef]).toBe(1);
      expect(stats.duplicateCreatesByReferenceId[inFlightRef]).toBeUndefined();
      expect(stats.payoutsByReferenceId[held.referenceId as string]).toBe(1);
      await Promise.all([a2.stop(), b2.stop()]);
    }, 90_000);
  },
  { needs: ['replicas'] },
);
