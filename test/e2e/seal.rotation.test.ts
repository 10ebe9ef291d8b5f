import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { auditSigningKeys } from '../../src/disbursements/audit.keys';
import { sealed, sealKeysOf } from '../../src/disbursements/payout.seal';
import { Disbursement } from '../../src/disbursements/disbursement.model';
import { asInsider } from '../support/audit';
import { Engine } from '../support/engine.types';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { GatewayProcess, launchGateway } from '../support/process';
import { approvalTokens, QUICK_RECOVERY_ENV, sharedProvider, SharedProvider } from '../support/replicas';
import { eventually, gql, GraphQLResponse, mobileInput } from '../support/stack';

jest.setTimeout(240_000);

const REQUESTER = 'tok_rotation_requester_0123456789abcdef';
const APPROVER = 'tok_rotation_approver_0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const PAYOUT = 'referenceId status accountNumber';
const CREATE = `mutation C($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ${PAYOUT} } }`;
const APPROVE = `mutation A($r: ID!) { approveDisbursement(referenceId: $r) { ${PAYOUT} } }`;
const ONE = `query D($r: ID!) { disbursement(referenceId: $r) { ${PAYOUT} } }`;
const QUEUE = `query Q { disbursementHistory(first: 100, filter: { status: [AWAITING_APPROVAL] }) { edges { node { ${PAYOUT} } } } }`;

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
interface Payout {
  referenceId: string;
  status: string;
  accountNumber: string;
}
const codeOf = (r: GraphQLResponse<unknown>) => r.errors?.[0]?.extensions?.code;

/**
 * Issue 53: the audit key rotation runbook (docs/operations.md), run step by step against replicas
 * (two on PostgreSQL, one restarted on the embedded file) with held and scheduled payouts waiting:
 * the new key first and the old kept, one replica at a time; then the old key retired. Every
 * legitimate payout is sent once; a seal re-made under the retired key (by an insider who kept it, or
 * who holds a leaked key) is never sent on, and never reported as tampered. Then a leaked key is
 * retired at once.
 */
describeEachEngine('issue 53: the audit key rotated with payouts waiting, step by step', (storeEnv, engine: Engine) => {
  const replicas = engine.capabilities.includes('replicas') ? 2 : 1;
  const k1 = pem();
  const k2 = pem();
  const k3 = pem();
  let shared: SharedProvider;
  let running: GatewayProcess[] = [];

  const settings = (key: string) => ({
    ...shared.env,
    ...QUICK_RECOVERY_ENV,
    ...approvalTokens(REQUESTER, APPROVER),
    AUDIT_SIGNING_KEY: key,
  });
  /** Replica `i` restarted with `key` (SIGTERM, then a new process), the others left running. */
  const restart = async (i: number, key: string) => {
    await running[i]?.stop();
    running[i] = await launchGateway(settings(key));
  };
  const on = (i = 0) => running[i % running.length];
  const create = async (amount: string, sendAt?: string, i = 0) => {
    const r = await gql<{ createMobileMoneyDisbursement: Payout }>(
      on(i).graphqlUrl,
      CREATE,
      { input: mobileInput({ referenceId: `rot-${randomUUID()}`, amount, ...(sendAt && { sendAt }) }) },
      as(REQUESTER),
    );
    expect(r.errors).toBeUndefined();
    return r.data!.createMobileMoneyDisbursement;
  };
  const approve = (r: string, i = 0) =>
    gql<{ approveDisbursement: Payout }>(on(i).graphqlUrl, APPROVE, { r }, as(APPROVER));
  const payout = async (r: string) =>
    (await gql<{ disbursement: Payout }>(on().graphqlUrl, ONE, { r }, as(REQUESTER))).data!.disbursement;
  const creates = (r: string) => shared.sandbox.stats().createRequestsByReferenceId[r] ?? 0;
  const sentOnce = (refs: string[]) => eventually(() => (refs.every((r) => creates(r) === 1) ? true : undefined), 600);
  /** Sent, or in flight: a create past UPSTREAM_TIMEOUT_MS on a busy machine reads UNKNOWN until reconciled. */
  const SENT = /PENDING|SUCCESSFUL|UNKNOWN/;
  /** Every payout in `refs` reads as the provider has it, once any UNKNOWN create is reconciled. */
  const settled = (refs: string[]) =>
    eventually(async () => {
      const statuses = await Promise.all(refs.map(async (r) => (await payout(r)).status));
      return statuses.every((s) => /PENDING|SUCCESSFUL/.test(s)) ? true : undefined;
    }, 600);
  const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

  /** An insider with the database and a copy of `key`: redirects a held payout and seals it anew under that key. */
  const redirectSealedUnder = (r: string, key: string, to: string) =>
    asInsider(ownerUrl(storeEnv()), async (sql) => {
      const [row] = await sql.all<{ record: string }>('SELECT record FROM payouts WHERE reference_id = ?', r);
      const record = JSON.parse(row.record) as Disbursement;
      const request = { ...record.request!, accountNumber: to };
      const { createHash } = await import('node:crypto');
      const entries = Object.entries(request)
        .filter((e) => typeof e[1] === 'string')
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const fingerprint = createHash('sha256').update(JSON.stringify(entries)).digest('base64url');
      const forged = sealed(sealKeysOf(auditSigningKeys(key))[0], {
        ...record,
        request,
        fingerprint,
        accountNumber: to,
      });
      await sql.run('UPDATE payouts SET record = ? WHERE reference_id = ?', JSON.stringify(forged), r);
    });

  beforeAll(async () => {
    shared = await sharedProvider(storeEnv(), { settleMs: 100, callbackRetryBaseMs: 50 });
    for (let i = 0; i < replicas; i += 1) running.push(await launchGateway(settings(k1)));
  });
  afterAll(async () => {
    await Promise.all(running.map((g) => g.stop()));
    running = [];
    await shared?.sandbox.close();
  });

  it('key 2 added first, replica by replica, then key 1 retired: every waiting payout sent once, a seal re-made under key 1 refused', async () => {
    // Waiting under key 1: two held, one scheduled for after the whole rotation, one held for the insider.
    const held = await create('2500.00');
    const heldLater = await create('2600.00');
    const scheduled = await create('50.00', inMs(6_000));
    const target = await create('2700.00');

    // Step 2: AUDIT_SIGNING_KEY is key 2 then key 1, one replica at a time.
    await restart(0, `${k2}${k1}`);
    expect(on(0).output()).toMatch(/re-sealed under audit key/);
    // A replica still on key 1 alone holds what key 2 sealed, for an operator: never cancelled, nothing decided.
    if (replicas === 2) {
      const there = await approve(heldLater.referenceId, 1);
      expect(codeOf(there)).toBe('SERVICE_UNAVAILABLE');
      expect((await payout(heldLater.referenceId)).status).toBe('AWAITING_APPROVAL');
      await restart(1, `${k2}${k1}`);
    }
    // Approved while both keys are configured: sent under key 2's seal.
    expect((await approve(held.referenceId)).data?.approveDisbursement.status).toMatch(SENT);

    // Step 5: key 1's private key removed, replica by replica.
    for (let i = 0; i < replicas; i += 1) await restart(i, k2);

    // The insider, who kept key 1, redirects a held payout and seals it anew under key 1.
    const mallory = '260971999567';
    await redirectSealedUnder(target.referenceId, k1, mallory);
    const queue = await gql<{ disbursementHistory: { edges: { node: Payout }[] } }>(
      on().graphqlUrl,
      QUEUE,
      {},
      as(APPROVER),
    );
    expect(queue.data?.disbursementHistory.edges.map((e) => e.node.accountNumber)).not.toContain(mallory);
    const refused = await approve(target.referenceId);
    expect(codeOf(refused)).toBe('SERVICE_UNAVAILABLE');
    expect(refused.errors?.[0]?.message).toMatch(/sealed under audit key/);

    expect((await approve(heldLater.referenceId, 1)).data?.approveDisbursement.status).toMatch(SENT);
    await sentOnce([held.referenceId, heldLater.referenceId, scheduled.referenceId]);
    await settled([held.referenceId, heldLater.referenceId, scheduled.referenceId]);
    expect(creates(target.referenceId)).toBe(0);
    expect(shared.sandbox.records().some((r) => r.accountNumber === mallory)).toBe(false);
    expect((await payout(target.referenceId)).status).toBe('AWAITING_APPROVAL');
    const metrics = await (await fetch(`${on().url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_payout_control_actions_total\{action="sealed_elsewhere"\} [1-9]/);
  });

  it('a leaked key retired at once: every replica restarted with key 3 then key 2, then key 3 alone; waiting payouts sent once, a seal re-made under key 2 refused', async () => {
    const held = await create('2500.00');
    const scheduled = await create('50.00', inMs(4_000));
    const target = await create('2700.00');
    // At once: every replica stopped, then each started with the new key first, then the leaked key dropped.
    await Promise.all(running.map((g) => g.stop()));
    running = [];
    for (let i = 0; i < replicas; i += 1) running.push(await launchGateway(settings(`${k3}${k2}`)));
    for (let i = 0; i < replicas; i += 1) await restart(i, k3);

    const mallory = '260971888567';
    await redirectSealedUnder(target.referenceId, k2, mallory);
    expect(codeOf(await approve(target.referenceId))).toBe('SERVICE_UNAVAILABLE');
    expect((await approve(held.referenceId)).data?.approveDisbursement.status).toMatch(SENT);
    await sentOnce([held.referenceId, scheduled.referenceId]);
    await settled([held.referenceId, scheduled.referenceId]);
    expect(creates(target.referenceId)).toBe(0);
    expect(shared.sandbox.records().some((r) => r.accountNumber === mallory)).toBe(false);
  });
});
