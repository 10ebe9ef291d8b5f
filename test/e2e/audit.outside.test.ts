import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { loadConfig } from '../../src/config';
import { asInsider, auditVerify, copyDatabase, cutTail, InsiderSql } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { capturedLogs, eventually, gql, mobileInput, startStack } from '../support/stack';

jest.setTimeout(120_000);

const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;
const MERCHANTS = ['acme', 'beta', 'gamma'];

describeEachEngine('audit:verify with the checkpoints the gateway kept outside the database', (env) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-outside-'));
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const merchantsFile = join(dir, 'merchants.json');
  const settings = () => ({ ...env(), AUDIT_SIGNING_KEY: signingKey, MERCHANTS_FILE: merchantsFile });
  /** The file the gateway keeps by default for this database. */
  const keptFile = () => loadConfig(settings()).audit.checkpointFile;
  const paid = new Map<string, string[]>();
  let unknowns = 0;

  beforeAll(async () => {
    const merchants = MERCHANTS.map((id) => ({
      id,
      apiKey: `key-${id}`,
      clientTokens: [{ token: `tok-${id}-${randomUUID()}`, name: 'operations' }],
    }));
    writeFileSync(merchantsFile, JSON.stringify(merchants));
    const stack = await startStack({
      env: { ...settings(), UPSTREAM_TIMEOUT_MS: '1500', AUDIT_CHECKPOINT_SECONDS: '1' },
      sandbox: { activeKeys: merchants.map((m) => m.apiKey) },
    });
    try {
      const as = (m: number) => ({ authorization: `Bearer ${merchants[m].clientTokens[0].token}` });
      const final = (m: number, referenceId: string) =>
        eventually(async () => {
          const { data } = await gql<{ disbursement: { status: string } }>(
            stack.graphqlUrl,
            ONE,
            { referenceId },
            as(m),
          );
          return ['SUCCESSFUL', 'FAILED'].includes(data?.disbursement.status ?? '') ? true : undefined;
        }, 200);
      // Per merchant: payouts that settle, and ones whose answer times out after their callback settled
      // them (account ending 408: the sandbox settles at 400 ms, answers after 30 s): issue 44, item 8.
      await Promise.all(
        merchants.map(async (_merchant, m) => {
          const refs: string[] = [];
          for (let i = 0; i < 4; i += 1) {
            const input = mobileInput({ amount: '10', ...(i % 2 === 1 && { accountNumber: '260971234408' }) });
            const response = await gql<{ createMobileMoneyDisbursement: { referenceId: string } }>(
              stack.graphqlUrl,
              CREATE,
              { input },
              as(m),
            );
            if (response.errors?.[0]?.extensions?.code === 'OUTCOME_UNKNOWN') unknowns += 1;
            refs.push(input.referenceId as string);
          }
          for (const ref of refs) await final(m, ref);
          paid.set(MERCHANTS[m], refs);
        }),
      );
    } finally {
      // Shutdown signs every chain's head, in the database and the file.
      await stack.close();
    }
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(keptFile(), { force: true });
  });

  it('keeps a checkpoint file, and the untouched database verifies against it, late callbacks and timeouts included', async () => {
    expect(unknowns).toBeGreaterThan(0);
    expect(existsSync(keptFile())).toBe(true);
    const lines = readFileSync(keptFile(), 'utf8').trim().split('\n');
    expect(new Set(lines.map((line) => (JSON.parse(line) as { merchantId: string }).merchantId))).toEqual(
      new Set(MERCHANTS),
    );
    const result = await auditVerify(env().DATABASE_URL, [], settings());
    expect(result.output).toContain(`checking against the checkpoints kept in ${keptFile()}`);
    expect(result.output).toMatch(/merchant acme: \d+ entries verified\n/);
    expect(result.code).toBe(0);
  });

  /** Verify a tampered copy with the gateway's own settings and the file it kept. */
  const tampered = async (tamper: (sql: InsiderSql) => Promise<void>, file = keptFile()) => {
    const copy = await copyDatabase(ownerUrl(env()));
    try {
      await asInsider(copy.url, tamper);
      return await auditVerify(copy.url, [], { ...settings(), DATABASE_URL: copy.url, AUDIT_CHECKPOINT_FILE: file });
    } finally {
      await copy.remove();
    }
  };

  it('a deleted payout row is reported (issue 44, item 6)', async () => {
    const ref = paid.get('acme')![0];
    const result = await tampered((sql) =>
      sql.run("DELETE FROM payouts WHERE merchant_id = 'acme' AND reference_id = ?", ref),
    );
    expect(result.output).toContain(`merchant acme: payout ${ref} is gone from payouts`);
    expect(result.code).toBe(1);
  });

  it('a tail cut with its payouts, checkpoints and head is reported against the kept file (item 7)', async () => {
    const result = await tampered((sql) => cutTail(sql, 'acme'));
    expect(result.output).toMatch(
      /merchant acme: the entry at sequence \d+ does not verify: the chain ends before it, but a signed checkpoint records/,
    );
    expect(result.code).toBe(1);
  });

  it('a restart on a cut tail says so before signing anything, and verify still fails after it signed the cut head (item 7)', async () => {
    const copy = await copyDatabase(ownerUrl(env()));
    const file = join(dir, `restart-${randomUUID()}.jsonl`);
    copyFileSync(keptFile(), file);
    try {
      await asInsider(copy.url, (sql) => cutTail(sql, 'acme'));
      const from = capturedLogs.length;
      const stack = await startStack({
        env: { ...settings(), DATABASE_URL: copy.url, AUDIT_CHECKPOINT_FILE: file },
      });
      await stack.close();
      const logged = capturedLogs.slice(from).join('');
      expect(logged).toContain('the audit trail is shorter than, or differs from, what the checkpoint file signed');
      expect(logged).toMatch(/merchant acme: its trail ends before sequence \d+/);
      expect(logged).not.toMatch(/merchant (beta|gamma): its/);
      const result = await auditVerify(copy.url, [], {
        ...settings(),
        DATABASE_URL: copy.url,
        AUDIT_CHECKPOINT_FILE: file,
      });
      expect(result.output).toMatch(/merchant acme: the entry at sequence \d+ does not verify/);
      expect(result.code).toBe(1);
    } finally {
      await copy.remove();
    }
  });

  it('without a kept file, says plainly that the tail after the database checkpoints went unchecked (item 10c)', async () => {
    const result = await tampered((sql) => cutTail(sql, 'acme'), join(dir, 'none.jsonl'));
    expect(result.output).toContain('no checkpoint file at');
    expect(result.output).toContain('a tail cut after them would not show');
    expect(result.output).toMatch(/merchant acme: \d+ entries verified; .* rest on the database alone/);
    expect(result.code).toBe(0);
  });

  it('names every tampered merchant, and every break of each (item 8)', async () => {
    const result = await tampered(async (sql) => {
      await sql.run("UPDATE audit_log SET amount = '1.00' WHERE merchant_id = 'acme' AND sequence = 2");
      await sql.run("UPDATE audit_log SET actor = 'mallory' WHERE merchant_id = 'acme' AND sequence = 4");
      await sql.run("DELETE FROM payouts WHERE merchant_id = 'beta' AND reference_id = ?", paid.get('beta')![1]);
      await sql.run(
        "UPDATE payouts SET amount_minor = 999900 WHERE merchant_id = 'gamma' AND reference_id = ?",
        paid.get('gamma')![0],
      );
    });
    expect(result.output).toMatch(/merchant acme: the entry at sequence 2 does not verify/);
    expect(result.output).toMatch(/merchant acme: the entry at sequence 4 does not verify/);
    expect(result.output).toContain(`merchant beta: payout ${paid.get('beta')![1]} is gone from payouts`);
    expect(result.output).toContain(`merchant gamma: payout ${paid.get('gamma')![0]} does not match its audit trail`);
    expect(result.output).toContain('3 of 3 merchants did not verify');
    expect(result.code).toBe(1);
  });

  it('a forged checkpoint row is reported as forged, and the rest still verifies (item 10e)', async () => {
    const result = await tampered(async (sql) => {
      const [head] = await sql.all<{ audit_sequence: number | string; audit_hash: string }>(
        "SELECT audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = 'acme'",
      );
      await sql.run(
        "INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature) VALUES ('acme', ?, ?, ?, ?)",
        Number(head.audit_sequence) + 1,
        'f'.repeat(64),
        new Date().toISOString(),
        Buffer.alloc(64, 7).toString('base64url'),
      );
    });
    expect(result.output).toMatch(/merchant acme: .* does not carry the gateway's signature: forged, set aside/);
    expect(result.output).not.toMatch(/merchant acme: .*the chain ends before it/);
    expect(result.output).toMatch(/merchant beta: \d+ entries verified/);
    expect(result.output).toContain('1 of 3 merchants did not verify');
    expect(result.code).toBe(1);
  });

  it("the gateway's role cannot insert a checkpoint where a second role owns the schema (item 10e)", async () => {
    const settingsNow = env();
    if (settingsNow.DATABASE_OWNER_URL === undefined || !settingsNow.DATABASE_URL.startsWith('postgres')) return;
    const pool = new Pool({ connectionString: settingsNow.DATABASE_URL, max: 1 });
    try {
      await expect(
        pool.query(
          "INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature) VALUES ('acme', 1, 'x', 'y', 'z')",
        ),
      ).rejects.toThrow(/permission denied/);
    } finally {
      await pool.end();
    }
  });
});
