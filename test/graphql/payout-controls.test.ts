import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from 'graphql-ws';
import { Gateway, startApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { TestIdp } from '../support/idp';
import { describeEachEngine } from '../support/modes';
import {
  capturedLogs,
  CREATE_MOBILE,
  eventually,
  gql,
  GraphQLResponse,
  mobileInput,
  Stack,
  startStack,
} from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

/** One merchant per concern, so no test spends another's daily allowance. */
const MERCHANTS = {
  approvals: { approvalAbove: { ZMW: '5000' } },
  expiring: { approvalAbove: { ZMW: '100' }, approvalTtlSeconds: 1 },
  limits: { maxAmount: { ZMW: '50000' }, dailyLimit: { ZMW: '100000' }, userDailyLimit: { ZMW: '3000' } },
  daily: { dailyLimit: { ZMW: '10000' } },
  failing: { dailyLimit: { ZMW: '1000' } },
  plain: undefined,
} as const;
type MerchantId = keyof typeof MERCHANTS;
const PEOPLE = ['alice', 'bob'] as const;
type Person = (typeof PEOPLE)[number];
const tokenOf = (merchant: MerchantId, person: Person) => `tok-${merchant}-${person}-0123456789abcdef`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const FIELDS = `referenceId status message amount
  approval { requestedBy decidedBy decision decidedAt reason expiresAt }
  history { status source actor message }`;
const APPROVE = `mutation Approve($referenceId: ID!) { approveDisbursement(referenceId: $referenceId) { ${FIELDS} } }`;
const REJECT = `mutation Reject($referenceId: ID!, $reason: String) { rejectDisbursement(referenceId: $referenceId, reason: $reason) { ${FIELDS} } }`;
const CANCEL = `mutation Cancel($referenceId: ID!) { cancelDisbursement(referenceId: $referenceId) { ${FIELDS} } }`;
const APPROVE_MANY = `mutation ApproveMany($ids: [ID!]!) { approveDisbursements(referenceIds: $ids) { referenceId disbursement { status } error { code } } }`;
const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ${FIELDS} } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${FIELDS} } }`;
const ALLOWANCE = `query Allowance { payoutAllowance { currency maxAmount approvalAbove dailyRemaining userDailyRemaining } }`;
const QUEUE = `query Queue { disbursementHistory(filter: { status: [AWAITING_APPROVAL] }) { edges { node { referenceId } } } }`;

interface Approval {
  requestedBy: string;
  decidedBy?: string;
  decision?: string;
  reason?: string;
  expiresAt: string;
}
/** A payout as FIELDS selects it: its approval, and the actor of each step. */
interface ControlledPayout {
  referenceId: string;
  status: string;
  message?: string;
  approval?: Approval;
  history: { status: string; source: string; actor: string | null; message?: string }[];
}

const codeOf = (r: GraphQLResponse) => r.errors?.[0]?.extensions?.code;

describeEachEngine('payout controls, end to end against the sandbox', (env, engine) => {
  let stack: Stack;
  /**
   * A second replica sharing the database, on an engine that has replicas; elsewhere the same gateway, as an embedded
   * file serves one process alone.
   */
  let second: Gateway;
  let idp: TestIdp;

  const urlOf = (replica: 0 | 1) => `${replica === 0 ? stack.gateway.url : second.url}/graphql`;
  const as = (merchant: MerchantId, person: Person) => bearer(tokenOf(merchant, person));
  const jwt = async (merchant: MerchantId, sub: string, scope: string) =>
    bearer(await idp.sign({ claims: { merchant_id: merchant, sub, scope } }));
  const create = (merchant: MerchantId, person: Person, input: Record<string, unknown>, replica: 0 | 1 = 0) =>
    gql<{ createMobileMoneyDisbursement: ControlledPayout }>(urlOf(replica), CREATE, { input }, as(merchant, person));
  const sent = (referenceId: unknown) => stack.sandbox.stats().createRequestsByReferenceId[String(referenceId)] ?? 0;
  const allowance = async (headers: Record<string, string>) => {
    const r = await gql<{ payoutAllowance: Record<string, string | null>[] }>(urlOf(0), ALLOWANCE, {}, headers);
    expect(r.errors).toBeUndefined();
    return r.data?.payoutAllowance;
  };
  const held = async (merchant: MerchantId = 'approvals', amount = '6000') => {
    const input = mobileInput({ amount });
    const r = await create(merchant, 'alice', input);
    expect(r.errors).toBeUndefined();
    expect(r.data?.createMobileMoneyDisbursement.status).toBe('AWAITING_APPROVAL');
    return String(input.referenceId);
  };

  beforeAll(async () => {
    idp = await TestIdp.start();
    const dir = mkdtempSync(join(tmpdir(), 'controls-'));
    const file = join(dir, 'merchants.json');
    const ids = Object.keys(MERCHANTS) as MerchantId[];
    writeFileSync(
      file,
      JSON.stringify(
        ids.map((id) => ({
          id,
          apiKey: `key-${id}`,
          clientTokens: PEOPLE.map((name) => ({ token: tokenOf(id, name), name })),
          ...(MERCHANTS[id] && { controls: MERCHANTS[id] }),
        })),
      ),
    );
    const gatewayEnv: Record<string, string> = {
      MERCHANTS_FILE: file,
      JWT_JWKS_URL: idp.jwksUrl,
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: idp.audience,
      RECONCILE_INTERVAL_MS: '100',
      ...env(),
    };
    stack = await startStack({ env: gatewayEnv, sandbox: { activeKeys: ids.map((id) => `key-${id}`) } });
    if (!engine.capabilities.includes('replicas')) {
      second = stack.gateway;
      return;
    }
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        capturedLogs.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_BASE_URL: stack.sandbox.url,
      WEBHOOK_SECRET: stack.webhookSecret,
      UPSTREAM_TIMEOUT_MS: '3000',
      CLIENT_RATE_LIMIT_PER_MIN: '0',
      ...gatewayEnv,
    });
    second = (await startApp({ config, trustedProvider: true, logDestination: sink })).gateway;
  });

  afterAll(async () => {
    if (second && second !== stack.gateway) await second.close();
    await stack?.close();
    await idp?.close();
  });

  describe('approval by a second person', () => {
    it('holds a payout above the threshold: AWAITING_APPROVAL, the provider saw nothing, the queue lists it', async () => {
      const referenceId = await held();
      expect(sent(referenceId)).toBe(0);
      expect(stack.sandbox.records().some((r) => r.referenceId === referenceId)).toBe(false);
      const read = await gql<{ disbursement: ControlledPayout }>(
        urlOf(1),
        ONE,
        { referenceId },
        as('approvals', 'bob'),
      );
      expect(read.data?.disbursement).toMatchObject({
        status: 'AWAITING_APPROVAL',
        approval: { requestedBy: 'alice', decidedBy: null, decision: null },
        history: [{ status: 'AWAITING_APPROVAL', source: 'CREATE', actor: 'alice' }],
      });
      const queue = await gql<{ disbursementHistory: { edges: { node: { referenceId: string } }[] } }>(
        urlOf(0),
        QUEUE,
        {},
        as('approvals', 'bob'),
      );
      expect(queue.data?.disbursementHistory.edges.map((e) => e.node.referenceId)).toContain(referenceId);
      // At the threshold itself, nothing waits.
      const at = await create('approvals', 'alice', mobileInput({ amount: '5000' }));
      expect(at.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    });

    it('refuses self-approval with FORBIDDEN, saying why, and sends nothing', async () => {
      const referenceId = await held();
      const r = await gql(urlOf(0), APPROVE, { referenceId }, as('approvals', 'alice'));
      expect(codeOf(r)).toBe('FORBIDDEN');
      expect(r.errors?.[0].message).toMatch(/cannot approve/);
      expect(sent(referenceId)).toBe(0);
    });

    it("sends it exactly once on another person's approval: ten racing approvals over two replicas, one provider call", async () => {
      const referenceId = await held();
      const watcher: Client = wsClient(urlOf(1), as('approvals', 'alice'));
      try {
        const sub = subscribe<{ disbursementUpdated: PayoutRow }>(watcher, WATCH, { referenceId });
        await sub.waitFor(1);
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            gql<{ approveDisbursement: ControlledPayout }>(
              urlOf(i % 2 === 0 ? 0 : 1),
              APPROVE,
              { referenceId },
              as('approvals', 'bob'),
            ),
          ),
        );
        expect(answers.map((a) => a.errors)).toEqual(Array(10).fill(undefined));
        // Each approval answers what the one send got, on either replica, never the in-flight UNKNOWN.
        const statuses = answers.map((a) => a.data?.approveDisbursement.status);
        expect(statuses.filter((s) => s !== 'PENDING' && s !== 'SUCCESSFUL')).toEqual([]);
        expect(sent(referenceId)).toBe(1);
        await sub.completed;
        expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual([
          'AWAITING_APPROVAL',
          'PENDING',
          'SUCCESSFUL',
        ]);
      } finally {
        await watcher.dispose();
      }
      const read = await gql<{ disbursement: ControlledPayout }>(
        urlOf(0),
        ONE,
        { referenceId },
        as('approvals', 'alice'),
      );
      expect(read.data?.disbursement.approval).toMatchObject({
        requestedBy: 'alice',
        decidedBy: 'bob',
        decision: 'APPROVED',
      });
      expect(read.data?.disbursement.history.map((e) => [e.status, e.actor])).toEqual([
        ['AWAITING_APPROVAL', 'alice'],
        ['AWAITING_APPROVAL', 'bob'],
        ['PENDING', null],
        ['SUCCESSFUL', null],
      ]);
      expect(sent(referenceId)).toBe(1);
    });

    it('approve racing reject: exactly one decision wins, and the provider sees the payout at most once', async () => {
      const referenceId = await held();
      const [approved, rejected] = await Promise.all([
        gql(urlOf(0), APPROVE, { referenceId }, as('approvals', 'bob')),
        gql(urlOf(1), REJECT, { referenceId }, await jwt('approvals', 'carol', 'payouts:approve')),
      ]);
      expect([approved, rejected].filter((r) => r.errors === undefined)).toHaveLength(1);
      expect([codeOf(approved), codeOf(rejected)].filter(Boolean)).toEqual(['INVALID_STATE']);
      expect(sent(referenceId)).toBe(approved.errors ? 0 : 1);
    });

    it('rejection makes it CANCELLED with the reason, never sent; approving it then is INVALID_STATE', async () => {
      const referenceId = await held();
      const r = await gql<{ rejectDisbursement: ControlledPayout }>(
        urlOf(1),
        REJECT,
        { referenceId, reason: 'not budgeted' },
        as('approvals', 'bob'),
      );
      expect(r.data?.rejectDisbursement).toMatchObject({
        status: 'CANCELLED',
        approval: { decision: 'REJECTED', decidedBy: 'bob', reason: 'not budgeted' },
      });
      expect(r.data?.rejectDisbursement.message).toMatch(/Rejected by bob/);
      const again = await gql(urlOf(0), APPROVE, { referenceId }, as('approvals', 'bob'));
      expect(codeOf(again)).toBe('INVALID_STATE');
      expect(again.errors?.[0].extensions?.status).toBe('CANCELLED');
      expect(sent(referenceId)).toBe(0);
    });

    it('the requester may cancel their own; another writer may not', async () => {
      const referenceId = await held();
      const other = await gql(urlOf(0), CANCEL, { referenceId }, await jwt('approvals', 'dave', 'payouts:write'));
      expect(codeOf(other)).toBe('FORBIDDEN');
      const own = await gql<{ cancelDisbursement: ControlledPayout }>(
        urlOf(1),
        CANCEL,
        { referenceId },
        as('approvals', 'alice'),
      );
      expect(own.data?.cancelDisbursement).toMatchObject({
        status: 'CANCELLED',
        approval: { decision: 'CANCELLED', decidedBy: 'alice' },
      });
      expect(sent(referenceId)).toBe(0);
    });

    it('expires after approvalTtlSeconds: CANCELLED, saying so, and no provider call', async () => {
      const referenceId = await held('expiring', '500');
      const expired = await eventually(async () => {
        const r = await gql<{ disbursement: ControlledPayout }>(urlOf(1), ONE, { referenceId }, as('expiring', 'bob'));
        return r.data?.disbursement.status === 'CANCELLED' ? r.data.disbursement : undefined;
      });
      expect(expired.approval?.decision).toBe('EXPIRED');
      expect(expired.message).toMatch(/[Ee]xpired/);
      expect(codeOf(await gql(urlOf(0), APPROVE, { referenceId }, as('expiring', 'bob')))).toBe('INVALID_STATE');
      expect(sent(referenceId)).toBe(0);
      expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId]).toBeUndefined();
    });

    it.each([
      ['read-only', 'payouts:read'],
      ['write-only', 'payouts:write'],
      ['read and write', 'payouts:read payouts:write'],
    ])('a %s token cannot approve or reject', async (_name, scope) => {
      const referenceId = await held();
      for (const mutation of [APPROVE, REJECT]) {
        const r = await gql(urlOf(0), mutation, { referenceId }, await jwt('approvals', 'erin', scope));
        expect(codeOf(r)).toBe('FORBIDDEN');
        expect(r.errors?.[0].message).toMatch(/payouts:approve/);
      }
      expect(sent(referenceId)).toBe(0);
    });

    it('an approver token (a JWT with payouts:approve) approves; a batch approves each in order', async () => {
      const [first, second] = [await held(), await held()];
      const r = await gql<{
        approveDisbursements: { referenceId: string; disbursement?: { status: string }; error?: { code: string } }[];
      }>(
        urlOf(0),
        APPROVE_MANY,
        { ids: [first, 'no-such-payout', second] },
        await jwt('approvals', 'frank', 'payouts:approve'),
      );
      expect(r.data?.approveDisbursements.map((x) => x.disbursement?.status ?? x.error?.code)).toEqual([
        'PENDING',
        'BAD_USER_INPUT',
        'PENDING',
      ]);
      expect([sent(first), sent(second)]).toEqual([1, 1]);
    });

    it('writes one info log line per control action, with merchant, referenceId, actor and action', async () => {
      const referenceId = await held();
      await gql(urlOf(0), REJECT, { referenceId }, as('approvals', 'bob'));
      const lines = capturedLogs
        .flatMap((chunk) => chunk.split('\n').filter(Boolean))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.msg === 'payout control' && l.referenceId === referenceId);
      expect(lines.map((l) => [l.merchant, l.actor, l.action, l.level])).toEqual([
        ['approvals', 'alice', 'held', 30],
        ['approvals', 'bob', 'rejected', 30],
      ]);
      const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/gateway_payout_control_actions_total\{action="rejected"\} [1-9]/);
    });
  });

  describe('limits', () => {
    it('maxAmount refuses a larger payout before anything is stored or sent', async () => {
      const input = mobileInput({ amount: '50000.01' });
      const r = await create('limits', 'alice', input);
      expect(r.errors?.[0].extensions).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        limit: 'maxAmount',
        remaining: '50000',
        fields: ['input.amount'],
      });
      expect(sent(input.referenceId)).toBe(0);
      const read = await gql<{ disbursement: ControlledPayout | null }>(
        urlOf(0),
        ONE,
        { referenceId: input.referenceId },
        as('limits', 'alice'),
      );
      expect(read.data?.disbursement).toBeNull();
    });

    it('userDailyLimit: 20 concurrent creates of one person over two replicas never pass it; another person keeps theirs', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          create('limits', 'alice', mobileInput({ amount: '500' }), i % 2 === 0 ? 0 : 1),
        ),
      );
      const passed = answers.filter((a) => a.errors === undefined);
      expect(passed).toHaveLength(6);
      for (const refused of answers.filter((a) => a.errors)) {
        expect(refused.errors?.[0].extensions).toMatchObject({
          code: 'LIMIT_EXCEEDED',
          limit: 'userDailyLimit',
          remaining: '0',
        });
      }
      expect(await allowance(as('limits', 'alice'))).toEqual([
        { currency: 'ZMW', maxAmount: '50000', approvalAbove: null, dailyRemaining: '97000', userDailyRemaining: '0' },
      ]);
      expect((await allowance(as('limits', 'bob')))?.[0].userDailyRemaining).toBe('3000');
      const over = await create('limits', 'bob', mobileInput({ amount: '3000.01' }));
      expect(over.errors?.[0].extensions).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        limit: 'userDailyLimit',
        remaining: '3000',
      });
    });

    it('dailyLimit: 20 concurrent creates by two people over two replicas never pass it, and the refusal says what is left', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          create('daily', i % 2 === 0 ? 'alice' : 'bob', mobileInput({ amount: '1000' }), i % 2 === 0 ? 0 : 1),
        ),
      );
      expect(answers.filter((a) => a.errors === undefined)).toHaveLength(10);
      expect(answers.filter((a) => a.errors).map((a) => a.errors?.[0].extensions?.limit)).toEqual(
        Array(10).fill('dailyLimit'),
      );
      expect(
        stack.sandbox
          .records()
          .filter((r) => answers.some((a) => a.data?.createMobileMoneyDisbursement.referenceId === r.referenceId)),
      ).toHaveLength(10);
      expect((await allowance(as('daily', 'bob')))?.[0]).toMatchObject({
        dailyRemaining: '0',
        userDailyRemaining: null,
      });
    });

    it("a FAILED payout gives its amount back to the day's allowance", async () => {
      const failedAtOnce = await create(
        'failing',
        'alice',
        mobileInput({ amount: '600', accountNumber: '260971234111' }),
      );
      expect(failedAtOnce.data?.createMobileMoneyDisbursement.status).toBe('FAILED');
      expect((await allowance(as('failing', 'alice')))?.[0].dailyRemaining).toBe('1000');
      const failsLater = await create(
        'failing',
        'alice',
        mobileInput({ amount: '600', accountNumber: '260971234000' }),
      );
      expect(failsLater.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
      expect((await allowance(as('failing', 'alice')))?.[0].dailyRemaining).toBe('400');
      await eventually(async () =>
        (await allowance(as('failing', 'alice')))?.[0].dailyRemaining === '1000' ? true : undefined,
      );
    });
  });

  it('with no controls configured, behaviour is unchanged: any amount is sent at once, and there is no allowance', async () => {
    const input = mobileInput({ amount: '900000' });
    const r = await gql<{ createMobileMoneyDisbursement: { status: string } }>(
      urlOf(0),
      CREATE_MOBILE,
      { input },
      as('plain', 'alice'),
    );
    expect(r.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    expect(sent(input.referenceId)).toBe(1);
    expect(await allowance(as('plain', 'alice'))).toEqual([]);
  });
});
