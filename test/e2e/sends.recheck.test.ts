import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { asInsider, auditVerify } from '../support/audit';
import { InsiderSql } from '../support/engine.types';
import { TestIdp } from '../support/idp';
import { describeEachEngine } from '../support/modes';
import { withClient } from '../support/postgres';
import { GatewayProcess, launchGateway } from '../support/process';
import { eventually, gql, GraphQLResponse } from '../support/stack';

/**
 * Issue 44: money goes only where someone approved it, once. Against a real gateway process, the
 * sandbox and each engine: an archived beneficiary's held and scheduled payouts are never paid; an
 * approval of a beneficiary names the details seen; a payout edited in the database by the gateway's
 * own role is refused at its approval and at its time, audited; controls tightened before a scheduled
 * payout's time apply at its send; a new name alone awaits approval.
 */
const SCOPES = 'payouts:read payouts:write payouts:approve beneficiaries:read beneficiaries:write audit:read';
const AUDIT_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const LOOSE = {
  held: { approvalAbove: { ZMW: '100' } },
  guarded: { beneficiaryApproval: true },
  tight: undefined as Record<string, unknown> | undefined,
};
type MerchantId = keyof typeof LOOSE;

const BENEFICIARY = 'id name accountNumber status detailsFingerprint cancelledPayouts';
const CREATE_BEN = `mutation C($input: BeneficiaryInput!) { createBeneficiary(input: $input) { ${BENEFICIARY} } }`;
const UPDATE_BEN = `mutation U($id: ID!, $input: BeneficiaryInput!) { updateBeneficiary(id: $id, input: $input) { ${BENEFICIARY} } }`;
const APPROVE_BEN = `mutation A($id: ID!, $seen: String!) { approveBeneficiary(id: $id, expectedDetails: $seen) { ${BENEFICIARY} } }`;
const ARCHIVE_BEN = `mutation X($id: ID!) { archiveBeneficiary(id: $id) { ${BENEFICIARY} } }`;
const ONE_BEN = `query B($id: ID!) { beneficiary(id: $id) { ${BENEFICIARY} } }`;
const PAYOUT = 'referenceId status accountNumber message';
const PAY = `mutation P($input: BeneficiaryPayoutInput!) { payBeneficiary(input: $input) { ${PAYOUT} } }`;
const CREATE = `mutation M($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ${PAYOUT} } }`;
const APPROVE = `mutation AP($r: ID!) { approveDisbursement(referenceId: $r) { ${PAYOUT} } }`;
const ONE = `query D($r: ID!) { disbursement(referenceId: $r) { ${PAYOUT} } }`;
const QUEUE = `query Q { disbursementHistory(first: 100, filter: { status: [AWAITING_APPROVAL] }) { edges { node { ${PAYOUT} } } } }`;
const TRAIL = `query T($r: String) { auditTrail(first: 50, filter: { referenceId: $r }) { edges { node { action detail } } } }`;

interface Ben {
  id: string;
  status: string;
  detailsFingerprint: string;
  cancelledPayouts: string[] | null;
}
interface Payout {
  referenceId: string;
  status: string;
  accountNumber: string;
  message: string | null;
}
const codeOf = (r: GraphQLResponse<unknown>) => r.errors?.[0]?.extensions?.code;
/** A number of the sandbox's "anything else" kind (settles SUCCESSFUL), unique to the test. */
const account = () => `26097${String(randomBytes(4).readUInt32BE() % 10_000_000).padStart(7, '0')}`;
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describeEachEngine('issue 44: sends re-checked, end to end', (storeEnv, engine) => {
  let idp: TestIdp;
  let sandbox: SandboxHandle;
  let gateway: GatewayProcess;
  const dir = mkdtempSync(join(tmpdir(), 'sends-'));
  const merchantsFile = join(dir, 'merchants.json');
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const tokens = Object.fromEntries(Object.keys(LOOSE).map((id) => [id, `tok-${id}-${randomUUID()}`]));

  const writeMerchants = (controls: Record<MerchantId, Record<string, unknown> | undefined>) =>
    writeFileSync(
      merchantsFile,
      JSON.stringify(
        (Object.keys(controls) as MerchantId[]).map((id) => ({
          id,
          apiKey: `key-${id}`,
          clientTokens: [{ token: tokens[id], name: 'operations' }],
          ...(controls[id] && { controls: controls[id] }),
        })),
      ),
    );
  const launch = () =>
    launchGateway({
      ...storeEnv(),
      HOST: '127.0.0.1',
      PORT: '0',
      UPSTREAM_BASE_URL: sandbox.url,
      WEBHOOK_SECRET: webhookSecret,
      UPSTREAM_RATE_LIMIT_PER_MIN: '0',
      CLIENT_RATE_LIMIT_PER_MIN: '0',
      MERCHANTS_FILE: merchantsFile,
      JWT_JWKS_URL: idp.jwksUrl,
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: idp.audience,
      AUDIT_SIGNING_KEY: AUDIT_KEY,
      RECONCILE_INTERVAL_MS: '100',
    });

  async function call<T>(merchant: MerchantId, who: string, query: string, variables: Record<string, unknown> = {}) {
    const jwt = await idp.sign({ claims: { merchant_id: merchant, sub: who, scope: SCOPES } });
    return gql<T>(gateway.graphqlUrl, query, variables, { authorization: `Bearer ${jwt}` });
  }
  const ok = <T>(r: GraphQLResponse<T>): T => {
    expect(r.errors).toBeUndefined();
    return r.data as T;
  };
  const beneficiary = async (merchant: MerchantId, name = 'Supplier', accountNumber = account()) =>
    ok(
      await call<{ createBeneficiary: Ben }>(merchant, 'alice', CREATE_BEN, {
        input: { name, channel: 'MOBILE_MONEY', accountNumber },
      }),
    ).createBeneficiary;
  const pay = (merchant: MerchantId, beneficiaryId: string, amount: string, sendAt?: string) =>
    call<{ payBeneficiary: Payout }>(merchant, 'alice', PAY, {
      input: { referenceId: `ben-${randomUUID()}`, beneficiaryId, amount, currency: 'ZMW', ...(sendAt && { sendAt }) },
    });
  const create = async (merchant: MerchantId, amount: string, sendAt?: string) =>
    ok(
      await call<{ createMobileMoneyDisbursement: Payout }>(merchant, 'alice', CREATE, {
        input: {
          referenceId: `pay-${randomUUID()}`,
          amount,
          currency: 'ZMW',
          accountNumber: account(),
          ...(sendAt && { sendAt }),
        },
      }),
    ).createMobileMoneyDisbursement;
  const payout = async (merchant: MerchantId, r: string) =>
    ok(await call<{ disbursement: Payout }>(merchant, 'alice', ONE, { r })).disbursement;
  /** Once the due loop has looked at it: its status no longer SCHEDULED. */
  const afterItsTime = (merchant: MerchantId, r: string) =>
    eventually(async () => {
      const now = await payout(merchant, r);
      return now.status === 'SCHEDULED' ? undefined : now;
    }, 300);
  const atProvider = (r: string) => sandbox.records().some((record) => record.referenceId === r);
  const actions = async (merchant: MerchantId, r: string) =>
    ok(
      await call<{ auditTrail: { edges: { node: { action: string; detail: string | null } }[] } }>(
        merchant,
        'alice',
        TRAIL,
        { r },
      ),
    ).auditTrail.edges.map((e) => e.node.action);

  /** What the gateway's own database role can do: rewrite a payout's stored record (an SQL UPDATE). */
  async function asGatewayRole(use: (sql: InsiderSql) => Promise<void>): Promise<void> {
    const url = storeEnv().DATABASE_URL;
    if (!engine.capabilities.includes('roles')) return asInsider(url, use);
    await withClient(url, async (client) => {
      const numbered = (sql: string) => {
        let n = 0;
        return sql.replace(/\?/g, () => `$${++n}`);
      };
      await use({
        all: async <T>(sql: string, ...params: unknown[]) => (await client.query(numbered(sql), params)).rows as T[],
        run: async (sql, ...params) => void (await client.query(numbered(sql), params)),
      });
    });
  }
  const redirect = (merchant: MerchantId, r: string, to: string) =>
    asGatewayRole(async (sql) => {
      const [row] = await sql.all<{ record: string }>(
        'SELECT record FROM payouts WHERE merchant_id = ? AND reference_id = ?',
        merchant,
        r,
      );
      const record = JSON.parse(row.record) as { accountNumber: string; request: { accountNumber: string } };
      record.accountNumber = to;
      record.request.accountNumber = to;
      await sql.run(
        'UPDATE payouts SET record = ? WHERE merchant_id = ? AND reference_id = ?',
        JSON.stringify(record),
        merchant,
        r,
      );
    });

  beforeAll(async () => {
    idp = await TestIdp.start();
    sandbox = await startSandbox({
      port: 0,
      rateLimitPerMin: 0,
      webhookSecret,
      settleMs: 200,
      callbackRetryBaseMs: 50,
      activeKeys: Object.keys(LOOSE).map((id) => `key-${id}`),
    });
    writeMerchants(LOOSE);
    gateway = await launch();
  });
  afterAll(async () => {
    await gateway?.stop();
    await sandbox?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the archive race: its held payout approved after the archive and its scheduled payout due after it are cancelled, never paid', async () => {
    const ben = await beneficiary('held');
    const held = ok(await pay('held', ben.id, '500.00')).payBeneficiary;
    const scheduled = ok(await pay('held', ben.id, '5.00', inMs(2_000))).payBeneficiary;
    expect([held.status, scheduled.status]).toEqual(['AWAITING_APPROVAL', 'SCHEDULED']);

    const archived = ok(await call<{ archiveBeneficiary: Ben }>('held', 'alice', ARCHIVE_BEN, { id: ben.id }));
    expect(archived.archiveBeneficiary.cancelledPayouts?.sort()).toEqual(
      [held.referenceId, scheduled.referenceId].sort(),
    );
    const approval = await call('held', 'bob', APPROVE, { r: held.referenceId });
    expect(codeOf(approval)).toBe('INVALID_STATE');
    expect((await afterItsTime('held', scheduled.referenceId)).status).toBe('CANCELLED');
    expect((await payout('held', held.referenceId)).status).toBe('CANCELLED');
    expect(atProvider(held.referenceId)).toBe(false);
    expect(atProvider(scheduled.referenceId)).toBe(false);
    expect(await actions('held', held.referenceId)).toContain('CANCELLED');
  }, 30_000);

  it('the approval race: details changed between seeing and approving are not approved (STALE_APPROVAL), and nothing is paid', async () => {
    const ben = await beneficiary('guarded', 'Acme', '260971311567');
    ok(
      await call<{ approveBeneficiary: Ben }>('guarded', 'bob', APPROVE_BEN, {
        id: ben.id,
        seen: ben.detailsFingerprint,
      }),
    );
    const changed = ok(
      await call<{ updateBeneficiary: Ben }>('guarded', 'mallory', UPDATE_BEN, {
        id: ben.id,
        input: { name: 'Acme', channel: 'MOBILE_MONEY', accountNumber: '260971322567' },
      }),
    ).updateBeneficiary;
    expect(changed.status).toBe('AWAITING_APPROVAL');
    // Bob looked before Mallory's change: he approves what he saw.
    const approval = await call('guarded', 'bob', APPROVE_BEN, { id: ben.id, seen: ben.detailsFingerprint });
    expect(codeOf(approval)).toBe('STALE_APPROVAL');
    const now = ok(await call<{ beneficiary: Ben }>('guarded', 'bob', ONE_BEN, { id: ben.id })).beneficiary;
    expect(now.status).toBe('AWAITING_APPROVAL');
    const paid = await pay('guarded', ben.id, '10.00');
    expect(codeOf(paid)).toBe('INVALID_STATE');
    expect(sandbox.records().some((r) => r.accountNumber === '260971322567')).toBe(false);
    // Approving what is there now, having seen it, goes through.
    const seenNow = now.detailsFingerprint;
    expect(
      ok(await call<{ approveBeneficiary: Ben }>('guarded', 'bob', APPROVE_BEN, { id: ben.id, seen: seenNow })),
    ).toMatchObject({ approveBeneficiary: { status: 'ACTIVE' } });
  }, 30_000);

  it('a new name alone awaits approval: an approved payee cannot take a trusted one’s name unseen', async () => {
    const trusted = await beneficiary('guarded', `Trusted ${randomUUID()}`);
    ok(
      await call<{ approveBeneficiary: Ben }>('guarded', 'bob', APPROVE_BEN, {
        id: trusted.id,
        seen: trusted.detailsFingerprint,
      }),
    );
    const other = await beneficiary('guarded', 'Mallory Co');
    ok(
      await call<{ approveBeneficiary: Ben }>('guarded', 'bob', APPROVE_BEN, {
        id: other.id,
        seen: other.detailsFingerprint,
      }),
    );
    const renamed = await call<{ updateBeneficiary: Ben & { name: string } }>('guarded', 'mallory', UPDATE_BEN, {
      id: other.id,
      input: { name: 'Trusted', channel: 'MOBILE_MONEY', accountNumber: '260970000001' },
    });
    expect(codeOf(renamed)).toBeUndefined();
    expect(renamed.data?.updateBeneficiary.status).toBe('AWAITING_APPROVAL');
  }, 30_000);

  it('the gateway’s own role redirects a held and a scheduled payout in the database: the queue does not show it, nothing is sent, the refusal is audited', async () => {
    const held = await create('held', '500.00');
    const scheduled = await create('held', '5.00', inMs(2_500));
    const mallory = account();
    await redirect('held', held.referenceId, mallory);
    await redirect('held', scheduled.referenceId, mallory);

    const queue = ok(await call<{ disbursementHistory: { edges: { node: Payout }[] } }>('held', 'bob', QUEUE));
    expect(queue.disbursementHistory.edges.map((e) => e.node.accountNumber)).not.toContain(mallory);

    const approval = await call('held', 'bob', APPROVE, { r: held.referenceId });
    expect(codeOf(approval)).toBe('INVALID_STATE');
    expect((await afterItsTime('held', scheduled.referenceId)).status).toBe('CANCELLED');
    expect(atProvider(held.referenceId)).toBe(false);
    expect(atProvider(scheduled.referenceId)).toBe(false);
    expect(sandbox.records().some((r) => r.accountNumber === mallory)).toBe(false);
    expect(await actions('held', held.referenceId)).toContain('SEND_REFUSED');
    expect(await actions('held', scheduled.referenceId)).toContain('SEND_REFUSED');
  }, 30_000);

  it('controls tightened before a scheduled payout’s time apply at its send: above approvalAbove held, above maxAmount refused, audited', async () => {
    const sendAt = inMs(6_000);
    const toHold = await create('tight', '500.00', sendAt);
    const toRefuse = await create('tight', '5000.00', sendAt);
    await gateway.stop();
    writeMerchants({ ...LOOSE, tight: { approvalAbove: { ZMW: '100' }, maxAmount: { ZMW: '1000' } } });
    gateway = await launch();

    expect((await afterItsTime('tight', toHold.referenceId)).status).toBe('AWAITING_APPROVAL');
    expect((await afterItsTime('tight', toRefuse.referenceId)).status).toBe('CANCELLED');
    expect(atProvider(toHold.referenceId)).toBe(false);
    expect(atProvider(toRefuse.referenceId)).toBe(false);
    expect(await actions('tight', toHold.referenceId)).toContain('HELD');
    expect(await actions('tight', toRefuse.referenceId)).toContain('LIMIT_REFUSED');
    // The held one is sent once a second person approves it.
    const approved = ok(
      await call<{ approveDisbursement: Payout }>('tight', 'bob', APPROVE, { r: toHold.referenceId }),
    );
    expect(approved.approveDisbursement.status).toMatch(/PENDING|SUCCESSFUL/);
    expect(atProvider(toHold.referenceId)).toBe(true);
  }, 60_000);

  it('audit:verify names the payout the role redirected; every other chain, with every refusal in it, verifies', async () => {
    const verified = await auditVerify(storeEnv().DATABASE_URL, [], { AUDIT_SIGNING_KEY: AUDIT_KEY });
    expect(verified.output).toMatch(/merchant held: payout pay-\S+ does not match its audit trail/);
    expect(verified.output).toMatch(/merchant tight: \d+ entries verified/);
    expect(verified.output).toMatch(/merchant guarded: \d+ entries verified/);
    expect(verified.code).toBe(1);
  });
});
