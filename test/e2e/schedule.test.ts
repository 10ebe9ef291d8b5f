import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { describeEachEngine } from '../support/modes';
import { GatewayProcess, launchGateway, workingFolder } from '../support/process';
import { sharedProvider } from '../support/replicas';
import { bankInput, eventually, gql, knownSecrets, mobileInput } from '../support/stack';
import { parseCsv } from '../support/csv';
import { auditVerify } from '../support/audit';

/**
 * Scheduled payouts against real gateway processes, a real sandbox over HTTP and each engine: sent
 * once at their time (after a restart, by one of two replicas), never when cancelled, expired unsent
 * when every gateway was down past the late limit, and only once approved above the threshold.
 */
const REQUESTER = 'tok_schedule_requester_0123456789abcdef';
const APPROVER = 'tok_schedule_approver_0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const FIELDS = 'referenceId status sendAt message';
const CREATE = `mutation C($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ${FIELDS} } }`;
const CANCEL = `mutation X($r: ID!) { cancelDisbursement(referenceId: $r) { ${FIELDS} } }`;
const APPROVE = `mutation A($r: ID!) { approveDisbursement(referenceId: $r) { ${FIELDS} } }`;
const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { ${FIELDS} } }`;
const TRAIL = `query T($r: String) { auditTrail(first: 50, filter: { referenceId: $r }) { edges { node { action actor } } } }`;
const LISTED = `query L($prefix: String) {
  disbursementHistory(first: 10, filter: { status: [SCHEDULED], referenceIdPrefix: $prefix }) { totalCount edges { node { referenceId sendAt } } }
}`;
const STATEMENT = `query S($from: DateTimeISO!, $to: DateTimeISO!) { payoutStatement(from: $from, to: $to) { lines { currency status count amount } } }`;
const BANK_BATCH = `mutation B($inputs: [BankDisbursementInput!]!) {
  createBankDisbursements(inputs: $inputs) { referenceId disbursement { status sendAt } error { code fields } }
}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

interface Payout {
  referenceId: string;
  status: string;
  sendAt: string | null;
  message: string | null;
}
type Answer = { data?: { [op: string]: Payout } | null; errors?: { extensions?: Record<string, unknown> }[] };

const AUDIT_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function settings(shared: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...shared,
    PORT: '0',
    CLIENT_TOKENS: `${REQUESTER},${APPROVER}`,
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    PAYOUT_CONTROLS: JSON.stringify({ approvalAbove: { ZMW: '1000' } }),
    RECONCILE_INTERVAL_MS: '100',
    ...extra,
  };
}

async function scheduleOn(on: GatewayProcess, sendAt: string, overrides: Record<string, unknown> = {}) {
  const input = mobileInput({ referenceId: `sched-${randomUUID()}`, sendAt, ...overrides });
  const answer = (await gql(on.graphqlUrl, CREATE, { input }, as(REQUESTER))) as Answer;
  return { input, answer, payout: answer.data?.createMobileMoneyDisbursement };
}

async function payoutOn(on: GatewayProcess, referenceId: string): Promise<Payout | undefined> {
  const answer = (await gql(on.graphqlUrl, ONE, { r: referenceId }, as(REQUESTER))) as Answer;
  return answer.data?.disbursement ?? undefined;
}

/** Waits until the payout's status is one of `statuses` (the rechecker and callbacks move it). */
const reaches = (on: GatewayProcess, referenceId: string, statuses: string[]) =>
  eventually(async () => {
    const payout = await payoutOn(on, referenceId);
    return payout && statuses.includes(payout.status) ? payout : undefined;
  }, 200);

describeEachEngine('scheduled payouts', (storeEnv) => {
  let sandbox: SandboxHandle;
  let shared: Record<string, string>;

  beforeAll(async () => {
    knownSecrets.add(REQUESTER);
    knownSecrets.add(APPROVER);
    ({ sandbox, env: shared } = await sharedProvider(storeEnv(), { settleMs: 200, callbackRetryBaseMs: 50 }));
    // One audit key for every gateway of the block, as replicas and restarts share theirs.
    shared = { ...shared, AUDIT_SIGNING_KEY: AUDIT_KEY };
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  const sentOf = (referenceId: string) => sandbox.stats().createRequestsByReferenceId[referenceId] ?? 0;

  it('3 s ahead: SCHEDULED with nothing sent, then sent once at its time and settled; audited SCHEDULED then SENT', async () => {
    const gateway = await launchGateway(settings(shared));
    const sendAt = inMs(3_000);
    const { input, payout } = await scheduleOn(gateway, sendAt);
    const ref = input.referenceId as string;
    expect(payout).toMatchObject({ status: 'SCHEDULED', sendAt });
    expect(sentOf(ref)).toBe(0);
    // The same request again is the same scheduled payout; another sendAt is a conflicting request.
    expect((await scheduleOn(gateway, sendAt, { referenceId: ref })).payout?.status).toBe('SCHEDULED');
    const other = await scheduleOn(gateway, inMs(4_000), { referenceId: ref });
    expect(other.answer.errors?.[0]?.extensions?.code).toBe('REFERENCE_CONFLICT');
    expect(await reaches(gateway, ref, ['SUCCESSFUL'])).toMatchObject({ sendAt });
    expect(sentOf(ref)).toBe(1);
    const trail = (await gql<{ auditTrail: { edges: { node: { action: string } }[] } }>(
      gateway.graphqlUrl,
      TRAIL,
      { r: ref },
      as(REQUESTER),
    )) as { data?: { auditTrail: { edges: { node: { action: string } }[] } } };
    const actions = trail.data?.auditTrail.edges.map((e) => e.node.action) ?? [];
    expect(actions.indexOf('SCHEDULED')).toBeGreaterThanOrEqual(0);
    expect(actions.indexOf('SENT')).toBeGreaterThan(actions.indexOf('SCHEDULED'));
    await gateway.stop();
  }, 60_000);

  it('is listed by the SCHEDULED filter, counted apart in the statement, exported with its sendAt and counted in the metrics', async () => {
    const gateway = await launchGateway(settings(shared));
    const from = new Date(Date.now() - 60_000).toISOString();
    const sendAt = inMs(3_600_000);
    const prefix = `listed-${randomUUID()}-`;
    const { input } = await scheduleOn(gateway, sendAt, {
      referenceId: `${prefix}1`,
      amount: '70.25',
      currency: 'USD',
    });
    const to = new Date(Date.now() + 60_000).toISOString();
    const listed = (await gql(gateway.graphqlUrl, LISTED, { prefix }, as(REQUESTER))) as {
      data?: {
        disbursementHistory: { totalCount: number; edges: { node: { referenceId: string; sendAt: string } }[] };
      };
    };
    expect(listed.data?.disbursementHistory).toEqual({
      totalCount: 1,
      edges: [{ node: { referenceId: input.referenceId, sendAt } }],
    });
    const statement = (await gql(gateway.graphqlUrl, STATEMENT, { from, to }, as(REQUESTER))) as {
      data?: { payoutStatement: { lines: { currency: string; status: string; count: number; amount: string }[] } };
    };
    expect(statement.data?.payoutStatement.lines.filter((l) => l.currency === 'USD')).toEqual([
      { currency: 'USD', status: 'SCHEDULED', count: 1, amount: '70.25' },
    ]);
    const csv = await fetch(`${gateway.url}/exports/payouts.csv?${new URLSearchParams({ from, to })}`, {
      headers: as(REQUESTER),
    });
    const rows = parseCsv(await csv.text());
    const row = rows.find((r) => r[0] === input.referenceId);
    expect(row?.[rows[0].indexOf('sendAt')]).toBe(sendAt);
    expect(row?.[rows[0].indexOf('status')]).toBe('SCHEDULED');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(Number(/^gateway_scheduled_payouts (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^gateway_scheduled_overdue_seconds [\d.e+-]+$/m);
    await gateway.stop();
  }, 60_000);

  it('cancelled before its time by another person of the merchant: CANCELLED and never sent', async () => {
    const gateway = await launchGateway(settings(shared));
    const { input } = await scheduleOn(gateway, inMs(2_000));
    const ref = input.referenceId as string;
    const cancelled = (await gql(gateway.graphqlUrl, CANCEL, { r: ref }, as(APPROVER))) as Answer;
    expect(cancelled.data?.cancelDisbursement.status).toBe('CANCELLED');
    await sleep(3_000);
    expect((await payoutOn(gateway, ref))?.status).toBe('CANCELLED');
    expect(sentOf(ref)).toBe(0);
    await gateway.stop();
  }, 60_000);

  it.each([
    ['in the past', -60_000],
    ['two years ahead', 2 * 366 * 86_400_000],
  ])(
    'a sendAt %s is BAD_USER_INPUT naming input.sendAt, and nothing is stored',
    async (_name, offset) => {
      const gateway = await launchGateway(settings(shared));
      const { input, answer } = await scheduleOn(gateway, inMs(offset));
      expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['input.sendAt'] });
      expect(await payoutOn(gateway, input.referenceId as string)).toBeUndefined();
      await gateway.stop();
    },
    60_000,
  );

  it('bank batch items take a sendAt too, each refused apart naming its own inputs.N.sendAt', async () => {
    const gateway = await launchGateway(settings(shared));
    const sendAt = inMs(3_600_000);
    const inputs = [bankInput({ sendAt, amount: '100' }), bankInput({ sendAt: inMs(-60_000), amount: '100' })];
    const answer = (await gql(gateway.graphqlUrl, BANK_BATCH, { inputs }, as(REQUESTER))) as {
      data?: { createBankDisbursements: unknown[] };
    };
    expect(answer.data?.createBankDisbursements).toEqual([
      { referenceId: inputs[0].referenceId, disbursement: { status: 'SCHEDULED', sendAt }, error: null },
      {
        referenceId: inputs[1].referenceId,
        disbursement: null,
        error: { code: 'BAD_USER_INPUT', fields: ['inputs.1.sendAt'] },
      },
    ]);
    expect(sentOf(inputs[0].referenceId as string) + sentOf(inputs[1].referenceId as string)).toBe(0);
    await gateway.stop();
  }, 60_000);

  it('above the approval threshold: not sent at its time until approved, then sent once', async () => {
    const gateway = await launchGateway(settings(shared));
    const sendAt = inMs(1_500);
    const { input, payout } = await scheduleOn(gateway, sendAt, { amount: '5000' });
    const ref = input.referenceId as string;
    expect(payout).toMatchObject({ status: 'AWAITING_APPROVAL', sendAt });
    await sleep(2_500);
    expect((await payoutOn(gateway, ref))?.status).toBe('AWAITING_APPROVAL');
    expect(sentOf(ref)).toBe(0);
    const approved = (await gql(gateway.graphqlUrl, APPROVE, { r: ref }, as(APPROVER))) as Answer;
    expect(['PENDING', 'SUCCESSFUL']).toContain(approved.data?.approveDisbursement.status);
    await reaches(gateway, ref, ['SUCCESSFUL']);
    expect(sentOf(ref)).toBe(1);
    await gateway.stop();
  }, 60_000);

  it('the gateway killed before its time and started after it: sent once', async () => {
    const cwd = workingFolder();
    const first = await launchGateway(settings(shared), cwd);
    const { input } = await scheduleOn(first, inMs(1_500));
    const ref = input.referenceId as string;
    first.child.kill('SIGKILL');
    await first.stop();
    await sleep(2_500);
    expect(sentOf(ref)).toBe(0);
    const second = await launchGateway(settings(shared), cwd);
    await reaches(second, ref, ['SUCCESSFUL']);
    await sleep(1_000);
    expect(sentOf(ref)).toBe(1);
    await second.stop();
  }, 60_000);

  it('every gateway down past SCHEDULE_LATE_LIMIT_SECONDS: EXPIRED with a message, never sent', async () => {
    const cwd = workingFolder();
    const late = { SCHEDULE_LATE_LIMIT_SECONDS: '1' };
    const first = await launchGateway(settings(shared, late), cwd);
    const { input } = await scheduleOn(first, inMs(1_000));
    const ref = input.referenceId as string;
    first.child.kill('SIGKILL');
    await first.stop();
    await sleep(3_000);
    const second = await launchGateway(settings(shared, late), cwd);
    const expired = await reaches(second, ref, ['EXPIRED', 'PENDING', 'SUCCESSFUL']);
    expect(expired.status).toBe('EXPIRED');
    expect(expired.message).toMatch(/SCHEDULE_LATE_LIMIT_SECONDS/);
    expect(sentOf(ref)).toBe(0);
    await second.stop();
  }, 60_000);

  it('leaves an audit trail that audit:verify finds intact, every scheduled, sent, cancelled and expired payout checked', async () => {
    const verified = await auditVerify(storeEnv().DATABASE_URL, [], { AUDIT_SIGNING_KEY: AUDIT_KEY });
    expect(verified.output).not.toMatch(/does not verify|differs/);
    expect(verified.code).toBe(0);
  });
});

describeEachEngine(
  'scheduled payouts on two replicas',
  (storeEnv) => {
    let sandbox: SandboxHandle;
    let shared: Record<string, string>;

    beforeAll(async () => {
      knownSecrets.add(REQUESTER);
      knownSecrets.add(APPROVER);
      ({ sandbox, env: shared } = await sharedProvider(storeEnv(), { settleMs: 200, callbackRetryBaseMs: 50 }));
      // Replicas share one audit key (docs/scale-out.md): a payout one seals, the other sends.
      shared = { ...shared, AUDIT_SIGNING_KEY: AUDIT_KEY };
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it('ten payouts due at the same moment, both replicas running: each sent exactly once', async () => {
      const [a, b] = await Promise.all([launchGateway(settings(shared)), launchGateway(settings(shared))]);
      const sendAt = inMs(3_000);
      const refs: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const { input, payout } = await scheduleOn(i % 2 ? a : b, sendAt);
        expect(payout?.status).toBe('SCHEDULED');
        refs.push(input.referenceId as string);
      }
      for (const ref of refs) await reaches(a, ref, ['SUCCESSFUL']);
      await sleep(1_000);
      expect(refs.map((ref) => sandbox.stats().createRequestsByReferenceId[ref])).toEqual(Array(10).fill(1));
      await Promise.all([a.stop(), b.stop()]);
    }, 60_000);
  },
  { needs: ['replicas'] },
);
