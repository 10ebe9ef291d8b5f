import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { auditVerify } from '../support/audit';
import { TestIdp } from '../support/idp';
import { describeEachEngine } from '../support/modes';
import { GatewayProcess, launchGateway } from '../support/process';
import { eventually, gql, GraphQLResponse } from '../support/stack';

/**
 * The beneficiary book against a real gateway process, the sandbox over HTTP and each engine (on
 * PostgreSQL the gateway runs as its own role): create, list, pay by beneficiaryId with the details
 * reaching the provider; approval of changed details by a second person; the new-payee hold; a
 * payout's details never following a later change; merchants kept apart; archived unpayable;
 * scopes; every change audited, and audit:verify passing afterwards.
 */
const ALL_SCOPES = 'payouts:read payouts:write payouts:approve beneficiaries:read beneficiaries:write audit:read';
const AUDIT_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const MERCHANTS = {
  plain: undefined,
  // Held for a day after any change of details, so the hold shows without waiting.
  guarded: { beneficiaryApproval: true, newPayeeHoldSeconds: 86_400, approvalAbove: { ZMW: '100000' } },
  other: undefined,
} as const;
type MerchantId = keyof typeof MERCHANTS;

const BENEFICIARY = `id name channel accountNumber status createdBy approvedBy changedAt payableFrom detailsFingerprint`;
const CREATE = `mutation C($input: BeneficiaryInput!) { createBeneficiary(input: $input) { ${BENEFICIARY} } }`;
const UPDATE = `mutation U($id: ID!, $input: BeneficiaryInput!) { updateBeneficiary(id: $id, input: $input) { ${BENEFICIARY} } }`;
const APPROVE = `mutation A($id: ID!, $seen: String!) { approveBeneficiary(id: $id, expectedDetails: $seen) { ${BENEFICIARY} } }`;
const ARCHIVE = `mutation X($id: ID!) { archiveBeneficiary(id: $id) { ${BENEFICIARY} } }`;
const ONE = `query One($id: ID!) { beneficiary(id: $id) { ${BENEFICIARY} } }`;
const LIST = `query L($first: Int, $after: String, $filter: BeneficiaryFilter) {
  beneficiaries(first: $first, after: $after, filter: $filter) { totalCount pageInfo { hasNextPage endCursor } edges { node { ${BENEFICIARY} } } }
}`;
const PAY = `mutation P($input: BeneficiaryPayoutInput!) {
  payBeneficiary(input: $input) { referenceId status accountNumber beneficiaryId history { message } }
}`;
const BATCH = `mutation B($inputs: [BeneficiaryPayoutInput!]!) {
  payBeneficiaries(inputs: $inputs) { referenceId disbursement { referenceId status accountNumber beneficiaryId } error { code fields } }
}`;
const BATCH_AND_ONE = `mutation BO($inputs: [BeneficiaryPayoutInput!]!, $input: BeneficiaryPayoutInput!) {
  payBeneficiaries(inputs: $inputs) { referenceId } payBeneficiary(input: $input) { referenceId }
}`;
const PAYOUT = `query D($r: ID!) { disbursement(referenceId: $r) { referenceId status accountNumber beneficiaryId } }`;
const APPROVE_PAYOUT = `mutation AP($r: ID!) { approveDisbursement(referenceId: $r) { referenceId status } }`;
const TRAIL = `query T { auditTrail(first: 100, filter: { actions: [BENEFICIARY_CREATED, BENEFICIARY_CHANGED, BENEFICIARY_APPROVED, BENEFICIARY_ARCHIVED] }) {
  edges { node { action actor detail referenceId } } } }`;

interface Row {
  id: string;
  name: string;
  accountNumber: string;
  status: string;
  approvedBy: string | null;
  detailsFingerprint: string;
}
interface Payout {
  referenceId: string;
  status: string;
  accountNumber: string;
  beneficiaryId: string | null;
  history?: { message: string | null }[];
}

const mobile = (accountNumber: string, name = 'Supplier') => ({ name, channel: 'MOBILE_MONEY', accountNumber });
const bank = (accountNumber: string) => ({
  name: 'Bank supplier',
  channel: 'BANK',
  accountNumber,
  swiftCode: 'ZNCOZMLU',
  firstName: 'Jane',
  lastName: 'Banda',
  accountHolderName: 'Jane Banda',
  phoneNumber: '260971234567',
});
const codeOf = (r: GraphQLResponse) => r.errors?.[0]?.extensions?.code;
/** A number of the sandbox's "anything else" kind (settles SUCCESSFUL), unique to the test. */
const account = () => `26097${String(randomBytes(4).readUInt32BE() % 10_000_000).padStart(7, '0')}`;

describeEachEngine('the beneficiary book, end to end', (storeEnv) => {
  let idp: TestIdp;
  let sandbox: SandboxHandle;
  let gateway: GatewayProcess;
  const dir = mkdtempSync(join(tmpdir(), 'beneficiaries-'));
  const merchantsFile = join(dir, 'merchants.json');

  const token = async (merchant: MerchantId, sub: string, scope = ALL_SCOPES) => ({
    authorization: `Bearer ${await idp.sign({ claims: { merchant_id: merchant, sub, scope } })}`,
  });
  async function call<T>(merchant: MerchantId, who: string, query: string, variables: Record<string, unknown>) {
    return gql<T>(gateway.graphqlUrl, query, variables, await token(merchant, who));
  }
  const create = async (merchant: MerchantId, input: Record<string, unknown>, who = 'alice') => {
    const r = await call<{ createBeneficiary: Row }>(merchant, who, CREATE, { input });
    expect(r.errors).toBeUndefined();
    return r.data!.createBeneficiary;
  };
  const pay = (merchant: MerchantId, beneficiaryId: string, extra: Record<string, unknown> = {}) =>
    call<{ payBeneficiary: Payout }>(merchant, 'alice', PAY, {
      input: {
        referenceId: `ben-${randomUUID()}`,
        beneficiaryId,
        amount: '25.50',
        currency: 'ZMW',
        narration: 'invoice',
        ...extra,
      },
    });
  const payout = async (merchant: MerchantId, referenceId: string) =>
    (await call<{ disbursement: Payout }>(merchant, 'alice', PAYOUT, { r: referenceId })).data?.disbursement;
  const atProvider = (referenceId: string) => sandbox.records().find((r) => r.referenceId === referenceId);

  beforeAll(async () => {
    idp = await TestIdp.start();
    const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const ids = Object.keys(MERCHANTS) as MerchantId[];
    sandbox = await startSandbox({
      port: 0,
      rateLimitPerMin: 0,
      webhookSecret,
      settleMs: 200,
      callbackRetryBaseMs: 50,
      activeKeys: ids.map((id) => `key-${id}`),
    });
    writeFileSync(
      merchantsFile,
      JSON.stringify(
        ids.map((id) => ({
          id,
          apiKey: `key-${id}`,
          clientTokens: [{ token: `tok-${id}-${randomUUID()}`, name: 'operations' }],
          ...(MERCHANTS[id] && { controls: MERCHANTS[id] }),
        })),
      ),
    );
    gateway = await launchGateway({
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
  });
  afterAll(async () => {
    await gateway?.stop();
    await sandbox?.close();
    await idp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create, list with an exact totalCount (numbers masked; in full only by id), pay by beneficiaryId with the details reaching the provider; a later change leaves the payout as it was', async () => {
    const first = account();
    const mm = await create('plain', mobile(first, 'Alpha'));
    await create('plain', mobile(account(), 'Beta'));
    await create('plain', bank('1234567890123'));
    expect(mm).toMatchObject({ status: 'ACTIVE', accountNumber: first });

    const page = await call<{
      beneficiaries: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string };
        edges: { node: Row }[];
      };
    }>('plain', 'alice', LIST, { first: 2 });
    expect(page.data?.beneficiaries).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    expect(page.data?.beneficiaries.edges[0].node.accountNumber).toBe(`****${first.slice(-4)}`);
    const rest = await call<{ beneficiaries: { edges: { node: Row }[] } }>('plain', 'alice', LIST, {
      first: 2,
      after: page.data?.beneficiaries.pageInfo.endCursor,
    });
    expect(rest.data?.beneficiaries.edges.map((e) => e.node.name)).toEqual(['Bank supplier']);
    const searched = await call<{ beneficiaries: { totalCount: number } }>('plain', 'alice', LIST, {
      filter: { search: 'alph', channel: 'MOBILE_MONEY', status: 'ACTIVE' },
    });
    expect(searched.data?.beneficiaries.totalCount).toBe(1);
    expect(
      (await call<{ beneficiary: Row }>('plain', 'alice', ONE, { id: mm.id })).data?.beneficiary.accountNumber,
    ).toBe(first);

    const paid = await pay('plain', mm.id);
    expect(paid.errors).toBeUndefined();
    const ref = paid.data!.payBeneficiary.referenceId;
    expect(paid.data?.payBeneficiary).toMatchObject({ status: 'PENDING', accountNumber: first, beneficiaryId: mm.id });
    expect(atProvider(ref)).toMatchObject({ accountNumber: first, amount: 25.5 });

    const changed = account();
    const updated = await call<{ updateBeneficiary: Row }>('plain', 'alice', UPDATE, {
      id: mm.id,
      input: mobile(changed, 'Alpha'),
    });
    expect(updated.data?.updateBeneficiary.accountNumber).toBe(changed);
    const settled = await eventually(async () => {
      const p = await payout('plain', ref);
      return p?.status === 'SUCCESSFUL' ? p : undefined;
    });
    expect(settled).toMatchObject({ accountNumber: first, beneficiaryId: mm.id });
    expect(atProvider(ref)?.accountNumber).toBe(first);
  }, 60_000);

  it('beneficiaryApproval: a change of account number is unpayable (INVALID_STATE naming it) until a second person approves (self-approval FORBIDDEN); within newPayeeHoldSeconds even a small payout is held', async () => {
    const created = await create('guarded', mobile(account()), 'alice');
    expect(created.status).toBe('AWAITING_APPROVAL');
    expect(
      (
        await call<{ approveBeneficiary: Row }>('guarded', 'bob', APPROVE, {
          id: created.id,
          seen: created.detailsFingerprint,
        })
      ).data?.approveBeneficiary,
    ).toMatchObject({
      status: 'ACTIVE',
      approvedBy: 'bob',
    });
    const renamed = await call<{ updateBeneficiary: Row }>('guarded', 'alice', UPDATE, {
      id: created.id,
      input: mobile(created.accountNumber, 'Renamed'),
    });
    // A new name alone awaits approval too (issue 44 item 10d; docs/beneficiaries.md).
    expect(renamed.data?.updateBeneficiary.status).toBe('AWAITING_APPROVAL');
    expect(
      (
        await call<{ approveBeneficiary: Row }>('guarded', 'bob', APPROVE, {
          id: created.id,
          seen: renamed.data?.updateBeneficiary.detailsFingerprint,
        })
      ).data?.approveBeneficiary.status,
    ).toBe('ACTIVE');

    const changed = await call<{ updateBeneficiary: Row }>('guarded', 'alice', UPDATE, {
      id: created.id,
      input: mobile(account(), 'Renamed'),
    });
    expect(changed.data?.updateBeneficiary.status).toBe('AWAITING_APPROVAL');
    const refused = await pay('guarded', created.id);
    expect(codeOf(refused)).toBe('INVALID_STATE');
    expect(refused.errors?.[0]?.extensions).toMatchObject({ beneficiaryId: created.id, status: 'AWAITING_APPROVAL' });
    const seen = changed.data?.updateBeneficiary.detailsFingerprint;
    expect(codeOf(await call('guarded', 'alice', APPROVE, { id: created.id, seen }))).toBe('FORBIDDEN');
    expect(
      (await call<{ approveBeneficiary: Row }>('guarded', 'bob', APPROVE, { id: created.id, seen })).data
        ?.approveBeneficiary.status,
    ).toBe('ACTIVE');

    const small = await pay('guarded', created.id, { amount: '1' });
    expect(small.data?.payBeneficiary).toMatchObject({ status: 'AWAITING_APPROVAL', beneficiaryId: created.id });
    expect(small.data?.payBeneficiary.history?.[0].message).toMatch(/new payee/);
    const ref = small.data!.payBeneficiary.referenceId;
    expect(atProvider(ref)).toBeUndefined();
    const approved = await call<{ approveDisbursement: Payout }>('guarded', 'bob', APPROVE_PAYOUT, { r: ref });
    expect(approved.errors).toBeUndefined();
    await eventually(() => atProvider(ref));
  }, 60_000);

  it('an approval names the details it approves: without expectedDetails it is refused naming the argument, and nothing is approved', async () => {
    const created = await create('guarded', mobile(account()), 'alice');
    const unnamed = await call<Record<string, unknown>>(
      'guarded',
      'bob',
      `mutation A($id: ID!) { approveBeneficiary(id: $id) { id } }`,
      {
        id: created.id,
      },
    );
    expect(codeOf(unnamed)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(unnamed.errors?.[0]?.message).toContain('expectedDetails');
    expect(unnamed.data ?? undefined).toBeUndefined();
    expect(
      (await call<{ beneficiary: Row }>('guarded', 'bob', ONE, { id: created.id })).data?.beneficiary,
    ).toMatchObject({ status: 'AWAITING_APPROVAL', approvedBy: null });
  });

  it("another merchant's beneficiary is invisible and cannot be paid; an archived one cannot be paid and its payouts stay", async () => {
    const mine = await create('plain', mobile(account()));
    const sent = sandbox.records().length;
    expect(
      (await call<{ beneficiary: Row | null }>('other', 'alice', ONE, { id: mine.id })).data?.beneficiary,
    ).toBeNull();
    const theirs = await pay('other', mine.id);
    expect(codeOf(theirs)).toBe('BAD_USER_INPUT');
    expect(codeOf(await call('other', 'alice', ARCHIVE, { id: mine.id }))).toBe('BAD_USER_INPUT');
    expect(sandbox.records()).toHaveLength(sent);
    const before = await pay('plain', mine.id);
    const ref = before.data!.payBeneficiary.referenceId;
    expect(
      (await call<{ archiveBeneficiary: Row }>('plain', 'alice', ARCHIVE, { id: mine.id })).data?.archiveBeneficiary
        .status,
    ).toBe('ARCHIVED');
    const after = await pay('plain', mine.id);
    expect(codeOf(after)).toBe('INVALID_STATE');
    expect(after.errors?.[0]?.extensions).toMatchObject({ beneficiaryId: mine.id, status: 'ARCHIVED' });
    expect(await payout('plain', ref)).toMatchObject({ beneficiaryId: mine.id });
  }, 60_000);

  it('a batch of beneficiary payouts: each paid as payBeneficiary would, an archived one refused apart naming its item', async () => {
    const [live, gone] = [await create('plain', mobile(account())), await create('plain', mobile(account()))];
    await call('plain', 'alice', ARCHIVE, { id: gone.id });
    const item = (beneficiaryId: string) => ({
      referenceId: `batch-${randomUUID()}`,
      beneficiaryId,
      amount: '3',
      currency: 'ZMW',
    });
    const inputs = [item(live.id), item(gone.id), item('ben_nobody')];
    const r = await call<{
      payBeneficiaries: { disbursement: Payout | null; error: { code: string; fields: string[] | null } | null }[];
    }>('plain', 'alice', BATCH, { inputs });
    expect(r.errors).toBeUndefined();
    const [paid, archived, unknown] = r.data!.payBeneficiaries;
    expect(paid.disbursement).toMatchObject({
      status: 'PENDING',
      beneficiaryId: live.id,
      accountNumber: live.accountNumber,
    });
    expect(archived.error?.code).toBe('INVALID_STATE');
    expect(unknown.error).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['inputs.2.beneficiaryId'] });
    expect(atProvider(inputs[0].referenceId)).toMatchObject({ accountNumber: live.accountNumber });
    expect(atProvider(inputs[1].referenceId)).toBeUndefined();
    // Payments to beneficiaries count as payouts of the operation: 101 are refused whole, nothing sent.
    const sent = sandbox.records().length;
    const hundred = Array.from({ length: 100 }, () => item(live.id));
    const tooMany = await call('plain', 'alice', BATCH, { inputs: [...hundred, item(live.id)] });
    expect(tooMany.errors?.[0]?.message).toMatch(/at most 100 payouts; this one has 101/);
    const together = await call('plain', 'alice', BATCH_AND_ONE, { inputs: hundred, input: item(live.id) });
    expect(together.errors?.[0]?.message).toMatch(/at most 100 payouts in all; this one carries 101/);
    expect(sandbox.records()).toHaveLength(sent);
  }, 60_000);

  it('a read-only token cannot create, change, approve or archive a beneficiary (FORBIDDEN), yet reads the book', async () => {
    const b = await create('guarded', mobile(account()));
    const reader = await token('guarded', 'rita', 'payouts:read beneficiaries:read');
    const as = (query: string, variables: Record<string, unknown>) => gql(gateway.graphqlUrl, query, variables, reader);
    expect(codeOf(await as(CREATE, { input: mobile(account()) }))).toBe('FORBIDDEN');
    expect(codeOf(await as(UPDATE, { id: b.id, input: mobile(account()) }))).toBe('FORBIDDEN');
    expect(codeOf(await as(APPROVE, { id: b.id, seen: b.detailsFingerprint }))).toBe('FORBIDDEN');
    expect(codeOf(await as(ARCHIVE, { id: b.id }))).toBe('FORBIDDEN');
    expect(
      codeOf(await as(PAY, { input: { referenceId: 'r', beneficiaryId: b.id, amount: '1', currency: 'ZMW' } })),
    ).toBe('FORBIDDEN');
    expect((await as(ONE, { id: b.id })).data).toMatchObject({ beneficiary: { status: 'AWAITING_APPROVAL' } });
    const writerOnly = await token('guarded', 'wes', 'beneficiaries:write');
    expect(codeOf(await gql(gateway.graphqlUrl, APPROVE, { id: b.id, seen: b.detailsFingerprint }, writerOnly))).toBe(
      'FORBIDDEN',
    );
  }, 60_000);

  it('every change is in the audit trail, account numbers masked there and absent from the logs, and audit:verify passes', async () => {
    const number = account();
    const b = await create('guarded', mobile(number), 'alice');
    await call('guarded', 'bob', APPROVE, { id: b.id, seen: b.detailsFingerprint });
    const changed = account();
    await call('guarded', 'alice', UPDATE, { id: b.id, input: mobile(changed) });
    await call('guarded', 'alice', ARCHIVE, { id: b.id });
    const trail = await call<{ auditTrail: { edges: { node: { action: string; actor: string; detail: string } }[] } }>(
      'guarded',
      'alice',
      TRAIL,
      {},
    );
    const mine = trail.data!.auditTrail.edges.map((e) => e.node).filter((n) => n.detail.includes(b.id));
    expect(mine.map((n) => [n.action, n.actor])).toEqual([
      ['BENEFICIARY_CREATED', 'alice'],
      ['BENEFICIARY_APPROVED', 'bob'],
      ['BENEFICIARY_CHANGED', 'alice'],
      ['BENEFICIARY_ARCHIVED', 'alice'],
    ]);
    expect(mine[2].detail).toContain(`****${number.slice(-4)} → mobile money ****${changed.slice(-4)}`);
    expect(JSON.stringify(mine)).not.toContain(number);
    // Nor do the gateway's log lines carry a full account number of the book.
    expect(gateway.output()).not.toContain(number);
    expect(gateway.output()).not.toContain(changed);

    await gateway.stop();
    const verified = await auditVerify(storeEnv().DATABASE_URL, [], {
      ...storeEnv(),
      AUDIT_SIGNING_KEY: AUDIT_KEY,
      MERCHANTS_FILE: merchantsFile,
    });
    expect(verified.output).not.toMatch(/does not verify|differs/);
    expect(verified.code).toBe(0);
  }, 60_000);
});
