import { randomUUID } from 'node:crypto';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { asInsider, auditVerify } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { GatewayProcess, launchGateway } from '../support/process';
import { approvalTokens, QUICK_RECOVERY_ENV, sharedProvider } from '../support/replicas';
import { eventually, gql, GraphQLResponse, mobileInput } from '../support/stack';

jest.setTimeout(120_000);

const REQUESTER = 'tok_decisions_requester_0123456789abcdef';
const APPROVER = 'tok_decisions_approver_0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const PAYOUT = 'referenceId status message';
const CREATE = `mutation C($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ${PAYOUT} } }`;
const REJECT = `mutation R($r: ID!) { rejectDisbursement(referenceId: $r, reason: "not ours") { ${PAYOUT} } }`;
const ONE = `query D($r: ID!) { disbursement(referenceId: $r) { ${PAYOUT} } }`;

interface Payout {
  referenceId: string;
  status: string;
  message: string | null;
}
const ok = <T>(r: GraphQLResponse<T>): T => {
  expect(r.errors).toBeUndefined();
  return r.data as T;
};

/**
 * Issue 53: a payout leaves only with a recorded decision that allows it. Whoever holds the gateway's
 * own database role (PostgreSQL) or the file (SQLite) sets a held payout nobody approved, and one a
 * second person rejected, SCHEDULED and due now, their requests and seals untouched: neither is sent,
 * and `audit:verify` names both.
 */
describeEachEngine('issue 53: a send needs its decision, end to end', (storeEnv) => {
  let provider: Awaited<ReturnType<typeof sharedProvider>>;
  let sandbox: SandboxHandle;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    provider = await sharedProvider(storeEnv(), { settleMs: 100, callbackRetryBaseMs: 50 });
    sandbox = provider.sandbox;
    gateway = await launchGateway({ ...provider.env, ...QUICK_RECOVERY_ENV, ...approvalTokens(REQUESTER, APPROVER) });
  });
  afterAll(async () => {
    await gateway?.stop();
    await sandbox?.close();
  });

  const create = async (amount: string) =>
    ok(
      await gql<{ createMobileMoneyDisbursement: Payout }>(
        gateway.graphqlUrl,
        CREATE,
        { input: mobileInput({ referenceId: `insider-${randomUUID()}`, amount }) },
        as(REQUESTER),
      ),
    ).createMobileMoneyDisbursement;
  const payout = async (r: string) =>
    ok(await gql<{ disbursement: Payout }>(gateway.graphqlUrl, ONE, { r }, as(REQUESTER))).disbursement;

  /** What the database's own role can do: rewrite a payout's row and record to SCHEDULED, due now. */
  const scheduleNow = (r: string) =>
    asInsider(ownerUrl(storeEnv()), async (sql) => {
      const [row] = await sql.all<{ record: string }>('SELECT record FROM payouts WHERE reference_id = ?', r);
      const now = new Date().toISOString();
      const record = { ...(JSON.parse(row.record) as Record<string, unknown>) };
      Object.assign(record, { status: 'SCHEDULED', sendAt: now, due: { kind: 'SEND', at: now }, sending: false });
      delete record.leasedUntil;
      await sql.run(
        `UPDATE payouts SET status = 'SCHEDULED', final = 0, due_kind = 'SEND', due_at = ?, leased_until = NULL,
         record = ? WHERE reference_id = ?`,
        Date.parse(now),
        JSON.stringify(record),
        r,
      );
    });

  it('a held payout nobody approved and a rejected one, made SCHEDULED and due by the database role, are never sent', async () => {
    const held = await create('2500.00');
    const rejected = await create('3500.00');
    expect([held.status, rejected.status]).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    ok(await gql(gateway.graphqlUrl, REJECT, { r: rejected.referenceId }, as(APPROVER)));

    await scheduleNow(held.referenceId);
    await scheduleNow(rejected.referenceId);

    // The due loop (every 100 ms) has looked at both once neither reads SCHEDULED any more.
    for (const r of [held.referenceId, rejected.referenceId])
      await eventually(async () => ((await payout(r)).status === 'SCHEDULED' ? undefined : true), 200);
    // A little longer than a send would take to reach the sandbox.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const atProvider = sandbox.records().map((record) => record.referenceId);
    expect(atProvider).not.toContain(held.referenceId);
    expect(atProvider).not.toContain(rejected.referenceId);
    expect((await payout(held.referenceId)).status).toBe('CANCELLED');
    expect((await payout(rejected.referenceId)).status).toBe('CANCELLED');

    const verified = await auditVerify(storeEnv().DATABASE_URL, [], {
      AUDIT_SIGNING_KEY: provider.env.AUDIT_SIGNING_KEY,
    });
    expect(verified.code).toBe(1);
    expect(verified.output).toContain(held.referenceId);
    expect(verified.output).toContain(rejected.referenceId);
  });

  /** The database role's other way in: a held payout's row made UNKNOWN, never received, its decision and seal gone. */
  const unknownNeverSent = (r: string) =>
    asInsider(ownerUrl(storeEnv()), async (sql) => {
      const [row] = await sql.all<{ record: string }>('SELECT record FROM payouts WHERE reference_id = ?', r);
      const record = { ...(JSON.parse(row.record) as Record<string, unknown>) };
      Object.assign(record, { status: 'UNKNOWN', sending: false });
      for (const field of ['sentAt', 'decision', 'approval', 'seal', 'due', 'leasedUntil']) delete record[field];
      await sql.run(
        `UPDATE payouts SET status = 'UNKNOWN', final = 0, due_kind = NULL, due_at = NULL, leased_until = NULL,
         record = ? WHERE reference_id = ?`,
        JSON.stringify(record),
        r,
      );
    });

  it("a held payout nobody approved, made UNKNOWN and never received by the database role, is not sent on its requester's retry", async () => {
    const input = mobileInput({ referenceId: `insider-${randomUUID()}`, amount: '2500.00' });
    const first = ok(
      await gql<{ createMobileMoneyDisbursement: Payout }>(gateway.graphqlUrl, CREATE, { input }, as(REQUESTER)),
    ).createMobileMoneyDisbursement;
    expect(first.status).toBe('AWAITING_APPROVAL');

    await unknownNeverSent(first.referenceId);
    const retried = await gql<{ createMobileMoneyDisbursement: Payout }>(
      gateway.graphqlUrl,
      CREATE,
      { input },
      as(REQUESTER),
    );
    // A little longer than a send would take to reach the sandbox.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sandbox.records().map((record) => record.referenceId)).not.toContain(first.referenceId);
    expect(retried.data?.createMobileMoneyDisbursement.status).not.toBe('PENDING');
  });
});
