import Database from 'better-sqlite3';
import { createPublicKey, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDevAuditKey } from '../../src/audit/audit.dev-key';
import { auditPublicKeys, checkpointVerifies } from '../../src/disbursements/audit.keys';
import { PAYOUT_COLUMNS } from '../../src/exports/payouts.csv';
import { alterAuditAmount, auditVerify, withPassword } from '../support/audit';
import { parseCsv } from '../support/csv';
import { TestIdp } from '../support/idp';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { withClient } from '../support/postgres';
import { eventually, gql, GraphQLResponse, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';

jest.setTimeout(60_000);

const ENTRY = 'sequence actor action referenceId status amount detail hash previousHash';
const TRAIL = `query Trail($filter: AuditFilter, $after: String) { auditTrail(first: 50, after: $after, filter: $filter) {
  edges { node { ${ENTRY} } } pageInfo { hasNextPage endCursor } } }`;
const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;
const APPROVE = `mutation Approve($referenceId: ID!) { approveDisbursement(referenceId: $referenceId) { status } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;
const STATEMENT = `query Statement($from: DateTimeISO!, $to: DateTimeISO!) { payoutStatement(from: $from, to: $to) { lines { currency status count amount } } }`;
const START = `mutation Start($from: DateTimeISO!, $to: DateTimeISO!) { startReconciliation(from: $from, to: $to) { id } }`;
const RUN = `query Run($id: ID!) { reconciliationRun(id: $id) { state checked total failure
  discrepancies { referenceId kind gatewayStatus providerStatus resolved }
  balance { currency opening closing explained unexplained } } }`;

const CHECKPOINTS = 'query Checkpoints { auditCheckpoints { sequence hash at signature keyId } }';

const VERIFICATION = 'query Verify { auditVerification { verified entries brokenAt reason checkpoint { sequence } } }';

interface Verification {
  verified: boolean;
  entries: number;
  brokenAt: number | null;
  checkpoint: { sequence: number } | null;
}

interface Checkpoint {
  sequence: number;
  hash: string;
  at: string;
  keyId: string | null;
  signature: string;
}

interface Entry {
  sequence: number;
  actor: string | null;
  action: string;
  referenceId: string | null;
  status: string | null;
  amount: string | null;
  detail: string | null;
  hash: string;
  previousHash: string;
}
type Headers = Record<string, string>;

const MERCHANTS = ['acme', 'other'] as const;
type MerchantId = (typeof MERCHANTS)[number];

describeEachEngine('a finance team’s audit trail, statements, exports and reconciliation', (env) => {
  let stack: Stack;
  let idp: TestIdp;
  let databaseUrl: string;
  /** One person of a merchant, by name (their JWT's sub) and scopes. */
  const as = async (merchant: MerchantId, sub: string, scope: string): Promise<Headers> => ({
    authorization: `Bearer ${await idp.sign({ claims: { merchant_id: merchant, sub, scope } })}`,
  });
  const call = <T>(headers: Headers, query: string, variables: Record<string, unknown> = {}) =>
    gql<T>(stack.graphqlUrl, query, variables, headers);
  const ok = <T>(response: GraphQLResponse<T>): T => {
    expect(response.errors).toBeUndefined();
    return response.data!;
  };
  /** The whole trail (or the filter's part of it), page after page. */
  const trail = async (headers: Headers, filter: Record<string, unknown> = {}) => {
    const entries: Entry[] = [];
    for (let after: string | undefined; ;) {
      const { auditTrail } = ok(
        await call<{
          auditTrail: { edges: { node: Entry }[]; pageInfo: { hasNextPage: boolean; endCursor?: string } };
        }>(headers, TRAIL, { filter, after }),
      );
      entries.push(...auditTrail.edges.map((e) => e.node));
      if (!auditTrail.pageInfo.hasNextPage) return entries;
      after = auditTrail.pageInfo.endCursor;
    }
  };
  const create = async (headers: Headers, input: Record<string, unknown>) =>
    ok(
      await call<{ createMobileMoneyDisbursement: { referenceId: string; status: string } }>(headers, CREATE, {
        input,
      }),
    ).createMobileMoneyDisbursement;
  const statusOf = async (headers: Headers, referenceId: string) =>
    (await call<{ disbursement: { status: string } | null }>(headers, ONE, { referenceId })).data?.disbursement?.status;
  const settled = (headers: Headers, referenceId: string) =>
    eventually(async () => ((await statusOf(headers, referenceId)) === 'SUCCESSFUL' ? true : undefined), 200);
  const exportCsv = (headers: Headers, query: Record<string, string>) =>
    fetch(`${stack.gateway.url}/exports/payouts.csv?${new URLSearchParams(query)}`, { headers });
  /** A moment strictly after every payout recorded so far, and before any recorded later. */
  const boundary = async () => {
    const at = new Date(Date.now() + 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return at;
  };

  beforeAll(async () => {
    idp = await TestIdp.start();
    const file = join(mkdtempSync(join(tmpdir(), 'finance-')), 'merchants.json');
    const controls = { approvalAbove: { ZMW: '5000' } };
    // Each merchant's shared token is never used: every person here is a JWT with the scopes of their job.
    const clientTokens = (id: string) => [{ token: `tok-${id}-${randomUUID()}`, name: 'operations' }];
    writeFileSync(
      file,
      JSON.stringify(MERCHANTS.map((id) => ({ id, apiKey: `key-${id}`, clientTokens: clientTokens(id), controls }))),
    );
    databaseUrl = ownerUrl(env());
    stack = await startStack({
      env: {
        MERCHANTS_FILE: file,
        JWT_JWKS_URL: idp.jwksUrl,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: idp.audience,
        RECONCILE_INTERVAL_MS: '100',
        AUDIT_CHECKPOINT_SECONDS: '1',
        WALLET_BALANCE_CACHE_MS: '0',
        ...env(),
      },
      sandbox: { activeKeys: MERCHANTS.map((id) => `key-${id}`) },
    });
  });

  afterAll(async () => {
    await stack?.close();
    await idp?.close();
  });

  let approved: string;

  it('records a payout asked by one person and approved by another, in order, each entry chained to the one before', async () => {
    const alice = await as('acme', 'alice', 'payouts:write payouts:read');
    const bob = await as('acme', 'bob', 'payouts:approve');
    const auditor = await as('acme', 'auditor', 'audit:read');
    const held = await create(alice, mobileInput({ amount: '6000' }));
    expect(held.status).toBe('AWAITING_APPROVAL');
    approved = held.referenceId;
    const decided = ok(
      await call<{ approveDisbursement: { status: string } }>(bob, APPROVE, { referenceId: approved }),
    );
    expect(['PENDING', 'SUCCESSFUL']).toContain(decided.approveDisbursement.status);
    await settled(alice, approved);
    const mine = await eventually(async () => {
      const entries = await trail(auditor, { referenceId: approved });
      return entries.some((e) => e.action === 'CALLBACK') ? entries : undefined;
    });
    expect(mine.map((e) => [e.action, e.actor])).toEqual([
      ['CREATE_REQUESTED', 'alice'],
      ['HELD', null],
      ['APPROVED', 'bob'],
      ['SENT', null],
      ['PROVIDER_ANSWERED', null],
      ['CALLBACK', null],
    ]);
    expect(mine.at(-1)).toMatchObject({ status: 'SUCCESSFUL', amount: '6000' });
    const all = await trail(auditor);
    expect(all.map((e) => e.sequence)).toEqual(all.map((_e, i) => i + 1));
    expect(all[0].previousHash).toBe('0'.repeat(64));
    all.slice(1).forEach((entry, i) => expect(entry.previousHash).toBe(all[i].hash));
  });

  it('refuses the trail and the export to a payouts:read-only user, and shows another merchant nothing', async () => {
    const reader = await as('acme', 'reader', 'payouts:read');
    const refused = await call(reader, TRAIL);
    expect(refused.status).toBe(403);
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const window = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() };
    const csv = await exportCsv(reader, window);
    expect(csv.status).toBe(403);
    expect(await csv.json()).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });

    const stranger = await as('other', 'auditor', 'audit:read payouts:export');
    expect(await trail(stranger, { referenceId: approved })).toEqual([]);
    expect((await trail(stranger)).filter((e) => e.referenceId !== null)).toEqual([]);
    expect(await statusOf(stranger, approved)).toBeUndefined();
  });

  it('hands an auditor its merchant’s signed chain heads, each verifiable with the public key alone', async () => {
    const auditor = await as('acme', 'auditor', 'audit:read');
    const last = (await trail(auditor)).at(-1)!;
    // Signed within AUDIT_CHECKPOINT_SECONDS of the head moving.
    const checkpoints = await eventually(async () => {
      const { auditCheckpoints } = ok(await call<{ auditCheckpoints: Checkpoint[] }>(auditor, CHECKPOINTS));
      return auditCheckpoints[0]?.sequence >= last.sequence ? auditCheckpoints : undefined;
    }, 200);
    // The development key the gateway made, as an auditor given its public half would check it.
    const publicPem = createPublicKey((await readDevAuditKey())!).export({ type: 'spki', format: 'pem' });
    const keys = auditPublicKeys(publicPem.toString());
    for (const c of checkpoints) expect(checkpointVerifies(keys, { ...c, merchantId: 'acme' })).toBe(true);
    // Each names the key that signed it: the public key's fingerprint.
    expect(new Set(checkpoints.map((c) => c.keyId))).toEqual(new Set([keys[0].keyId]));
    expect(checkpoints.map((c) => c.sequence)).toEqual([...checkpoints.map((c) => c.sequence)].sort((a, b) => b - a));
    const theirs = ok(
      await call<{ auditCheckpoints: Checkpoint[] }>(await as('other', 'auditor', 'audit:read'), CHECKPOINTS),
    ).auditCheckpoints;
    for (const c of theirs) expect(checkpointVerifies(keys, { ...c, merchantId: 'acme' })).toBe(false);
    const refused = await call(await as('acme', 'reader', 'payouts:read'), CHECKPOINTS);
    expect(refused.status).toBe(403);

    const { auditVerification } = ok(await call<{ auditVerification: Verification }>(auditor, VERIFICATION));
    expect(auditVerification).toMatchObject({ verified: true, entries: (await trail(auditor)).length });
    expect(auditVerification.checkpoint?.sequence).toBeGreaterThanOrEqual(last.sequence);
  });

  it('answers 401 without a credential and 400 naming the field of a bad window', async () => {
    const exporter = await as('acme', 'exporter', 'payouts:export');
    const anonymous = await exportCsv({}, { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' });
    expect(anonymous.status).toBe(401);
    const bad = async (query: Record<string, string>) => {
      const response = await exportCsv(exporter, query);
      expect(response.status).toBe(400);
      return ((await response.json()) as { errors: { extensions: { fields: string[] } }[] }).errors[0].extensions;
    };
    expect(await bad({ to: '2026-01-02T00:00:00Z' })).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['from'] });
    expect(await bad({ from: '2026-01-01T00:00:00Z', to: 'tomorrow' })).toMatchObject({ fields: ['to'] });
    expect(await bad({ from: '2026-01-01T00:00:00', to: '2026-01-02T00:00:00Z' })).toMatchObject({ fields: ['from'] });
    expect(await bad({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toMatchObject({
      fields: ['from', 'to'],
    });
    expect(await bad({ from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toMatchObject({
      fields: ['from', 'to'],
    });
  });

  it('sums a window exactly: 0.10 + 0.20 is 0.30', async () => {
    const clerk = await as('acme', 'clerk', 'payouts:write payouts:read');
    const from = await boundary();
    const tenCents = await create(clerk, mobileInput({ amount: '0.10' }));
    const twentyCents = await create(clerk, mobileInput({ amount: '0.20' }));
    const to = await boundary();
    await settled(clerk, tenCents.referenceId);
    await settled(clerk, twentyCents.referenceId);
    const { payoutStatement } = ok(
      await call<{ payoutStatement: { lines: unknown[] } }>(clerk, STATEMENT, {
        from: from.toISOString(),
        to: to.toISOString(),
      }),
    );
    expect(payoutStatement.lines).toEqual([{ currency: 'ZMW', status: 'SUCCESSFUL', count: 2, amount: '0.30' }]);
  });

  it("exports exactly the window's payouts of the caller's merchant as CSV, formula-like cells neutralised", async () => {
    const formula = '=HYPERLINK("http://evil.example","click")';
    const requester = await as('acme', formula, 'payouts:write');
    const clerk = await as('acme', 'clerk', 'payouts:read');
    const exporter = await as('acme', 'exporter', 'payouts:export audit:read');
    const before = await create(requester, mobileInput({ amount: '1.00' }));
    const from = await boundary();
    const inside = [
      await create(requester, mobileInput({ amount: '12.5' })),
      // Held for approval, so the provider never sees a referenceId a spreadsheet would run.
      await create(requester, mobileInput({ referenceId: `@SUM(1+1)-${randomUUID()}`, amount: '7000' })),
    ];
    await create(await as('other', 'someone', 'payouts:write'), mobileInput({ amount: '3.00' }));
    const to = await boundary();
    const after = await create(requester, mobileInput({ amount: '2.00' }));
    // Settled first, so each row's status is final and the reconciliation below starts from a quiet merchant.
    for (const { referenceId } of [before, inside[0], after]) await settled(clerk, referenceId);

    const response = await exportCsv(exporter, { from: from.toISOString(), to: to.toISOString() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="payouts-[\dTZ]+-[\dTZ]+\.csv"$/,
    );
    const text = await response.text();
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual([...PAYOUT_COLUMNS]);
    const cell = (row: string[], column: (typeof PAYOUT_COLUMNS)[number]) => row[PAYOUT_COLUMNS.indexOf(column)];
    expect(rows.map((row) => cell(row, 'referenceId'))).toEqual([inside[0].referenceId, `'${inside[1].referenceId}`]);
    expect(rows.map((row) => cell(row, 'amount'))).toEqual(['12.50', '7000.00']);
    expect(rows.map((row) => cell(row, 'status'))).toEqual(['SUCCESSFUL', 'AWAITING_APPROVAL']);
    expect(rows.map((row) => cell(row, 'requestedBy'))).toEqual([`'${formula}`, `'${formula}`]);
    for (const row of rows) {
      const createdAt = Date.parse(cell(row, 'createdAt'));
      expect(createdAt).toBeGreaterThanOrEqual(from.getTime());
      expect(createdAt).toBeLessThan(to.getTime());
    }
    expect(text).not.toContain(before.referenceId);
    expect(text).not.toContain(after.referenceId);

    const exported = await trail(exporter, { actions: ['EXPORTED'] });
    expect(exported.at(-1)).toMatchObject({
      actor: 'exporter',
      detail: expect.stringMatching(/^2 payouts created from/),
    });
  });

  it('finds a payout the provider settled without calling back, resolves it, and shows money moved outside the gateway', async () => {
    const auditor = await as('acme', 'auditor', 'audit:read');
    const clerk = await as('acme', 'clerk', 'payouts:write payouts:read');
    const run = async () => {
      const { startReconciliation } = ok(
        await call<{ startReconciliation: { id: string } }>(auditor, START, {
          from: new Date(Date.now() - 3_600_000).toISOString(),
          to: new Date(Date.now() + 60_000).toISOString(),
        }),
      );
      return eventually(
        async () => {
          const { reconciliationRun } = ok(
            await call<{ reconciliationRun: { state: string } & Record<string, unknown> }>(auditor, RUN, {
              id: startReconciliation.id,
            }),
          );
          return reconciliationRun.state === 'RUNNING' ? undefined : reconciliationRun;
        },
        300,
        100,
      );
    };
    // The first run reads the wallet: the second explains what moved since.
    expect(await run()).toMatchObject({ state: 'DONE', discrepancies: [] });

    stack.sandbox.setFaults({ dropCallbacks: true });
    const quiet = await create(clerk, mobileInput({ amount: '12.34' }));
    await eventually(() =>
      stack.sandbox.records().find((r) => r.referenceId === quiet.referenceId && r.status === 'Successful'),
    );
    stack.sandbox.setFaults({});
    expect(await statusOf(clerk, quiet.referenceId)).toBe('PENDING');
    // The same key used elsewhere: the provider pays it, the gateway never hears of it.
    const elsewhere = await fetch(`${stack.sandbox.url}/api/v1/disbursements/mobile-money`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'key-acme' },
      body: JSON.stringify({
        referenceId: uniqueRef('elsewhere'),
        amount: 5,
        accountNumber: '260971234567',
        currency: 'ZMW',
      }),
    });
    expect(elsewhere.status).toBe(200);

    const second = await run();
    expect(second).toMatchObject({
      state: 'DONE',
      discrepancies: [
        {
          referenceId: quiet.referenceId,
          kind: 'STATUS_DIFFERS',
          gatewayStatus: 'PENDING',
          providerStatus: 'SUCCESSFUL',
          resolved: true,
        },
      ],
      balance: { currency: 'ZMW', explained: '-12.34', unexplained: '-5.00' },
    });
    expect(await statusOf(clerk, quiet.referenceId)).toBe('SUCCESSFUL');
    const reconciled = await trail(auditor, { referenceId: quiet.referenceId, actions: ['RECONCILED'] });
    expect(reconciled).toEqual([expect.objectContaining({ status: 'SUCCESSFUL' })]);
  });

  it('refuses UPDATE and DELETE on audit_log in the database itself', async () => {
    if (databaseUrl.startsWith('sqlite:')) {
      const db = new Database(databaseUrl.slice('sqlite:'.length));
      try {
        expect(() => db.prepare("UPDATE audit_log SET detail = 'x' WHERE merchant_id = 'acme'").run()).toThrow(
          /append-only/,
        );
        expect(() => db.prepare("DELETE FROM audit_log WHERE merchant_id = 'acme'").run()).toThrow(/append-only/);
      } finally {
        db.close();
      }
      return;
    }
    await withClient(databaseUrl, async (client) => {
      await expect(client.query("UPDATE audit_log SET detail = 'x' WHERE merchant_id = 'acme'")).rejects.toThrow(
        /append-only/,
      );
      await expect(client.query("DELETE FROM audit_log WHERE merchant_id = 'acme'")).rejects.toThrow(/append-only/);
      await expect(client.query('TRUNCATE audit_log')).rejects.toThrow(/append-only/);
    });
  });

  it('audit:verify passes, then names the merchant and the sequence of an entry altered behind the gateway’s back', async () => {
    const auditor = await as('acme', 'auditor', 'audit:read');
    const count = (await trail(auditor)).length;
    // A password in the URL (the test server does not ask for one) is never printed.
    const password = `pw-${randomUUID()}`;
    const url = databaseUrl.startsWith('sqlite:') ? databaseUrl : withPassword(env().DATABASE_URL, password);
    const intact = await auditVerify(url);
    expect(intact.output).toContain(`merchant acme: ${count} entries verified`);
    expect(intact.code).toBe(0);
    expect(intact.output).not.toContain(password);
    expect((await auditVerify(url, ['--merchant', 'other'])).output).toMatch(/^merchant other: \d+ entries verified$/m);

    const [target] = await trail(auditor, { referenceId: approved, actions: ['APPROVED'] });
    await alterAuditAmount(databaseUrl, 'acme', target.sequence);
    const broken = await auditVerify(url);
    expect(broken.code).toBe(1);
    expect(broken.output).toContain(`merchant acme: the entry at sequence ${target.sequence} does not verify`);
    expect(broken.output).toMatch(/altered/);
    expect(broken.output).not.toContain(password);
    // Another merchant's chain is its own: it still verifies.
    expect((await auditVerify(url, ['--merchant', 'other'])).code).toBe(0);
    // The gateway's own check on demand names the same entry.
    const { auditVerification } = ok(await call<{ auditVerification: Verification }>(auditor, VERIFICATION));
    expect(auditVerification).toMatchObject({ verified: false, brokenAt: target.sequence });
  });
});
