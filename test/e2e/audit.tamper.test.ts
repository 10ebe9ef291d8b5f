import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditEntry, chainHash } from '../../src/disbursements/audit.entry';
import { asInsider, auditCheckpoint, auditVerify, copyDatabase, InsiderSql } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { eventually, gql, mobileInput, startStack } from '../support/stack';
import { AuditRow } from '../../src/store/payout.row';

jest.setTimeout(120_000);

const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;

/** An audit_log row as the insider reads it. */
type Row = AuditRow;

const draftOf = (row: Row): AuditEntry => ({
  sequence: Number(row.sequence),
  at: row.at,
  actor: row.actor,
  action: row.action as AuditEntry['action'],
  referenceId: row.reference_id,
  status: row.status as AuditEntry['status'],
  amount: row.amount,
  currency: row.currency,
  detail: row.detail,
  hash: row.hash,
  previousHash: row.previous_hash,
  mac: null,
  keyId: null,
});

const entries = async (sql: InsiderSql, merchant: string) =>
  (await sql.all<Row>('SELECT * FROM audit_log WHERE merchant_id = ? ORDER BY sequence', merchant)).map(draftOf);

/**
 * What an insider who knows the chain rule does: puts `edited` in place of the merchant's entries, every hash
 * recomputed from the first, renumbered from 1, and (with `moveHead`) the head row moved along. The
 * insider has no key: each entry keeps whatever keyed value it had at that place.
 */
async function rewrite(sql: InsiderSql, merchant: string, edited: AuditEntry[], moveHead: boolean): Promise<void> {
  await sql.run('DELETE FROM audit_log WHERE merchant_id = ?', merchant);
  let previous = '0'.repeat(64);
  for (const [index, entry] of edited.entries()) {
    const sequence = index + 1;
    const hash = chainHash(previous, sequence, entry);
    await sql.run(
      `INSERT INTO audit_log (merchant_id, sequence, at, actor, action, reference_id, status, amount, currency, detail,
        hash, previous_hash, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      merchant,
      sequence,
      entry.at,
      entry.actor,
      entry.action,
      entry.referenceId,
      entry.status,
      entry.amount,
      entry.currency,
      entry.detail,
      hash,
      previous,
      entry.mac,
    );
    previous = hash;
  }
  if (moveHead)
    await sql.run(
      'UPDATE merchant_heads SET audit_sequence = ?, audit_hash = ? WHERE merchant_id = ?',
      edited.length,
      previous,
      merchant,
    );
}

/** Keyed values as stored, so a rewrite keeps them where they were. */
const withMacs = async (sql: InsiderSql, merchant: string, list: AuditEntry[]) => {
  const macs = await sql.all<{ sequence: number | string; mac: string | null }>(
    'SELECT sequence, mac FROM audit_log WHERE merchant_id = ? ORDER BY sequence',
    merchant,
  );
  return list.map((entry, index) => ({ ...entry, mac: macs[index]?.mac ?? null }));
};

/** A tampering, and the merchant (and, when it is sure, the sequence) audit:verify must name. */
interface Tampering {
  name: string;
  merchant: string;
  /** Whether a signed checkpoint covers it, so the public key alone also catches it. */
  covered: boolean;
  /** Whether only the kept checkpoints file can tell (the insider removed every trace from the database). */
  needsFile?: boolean;
  sequence?: number;
  tamper(sql: InsiderSql): Promise<void>;
}

const forgedApproved = (last: AuditEntry, mac: string | null): AuditEntry => ({
  ...last,
  sequence: last.sequence + 1,
  at: new Date().toISOString(),
  actor: 'mallory',
  action: 'APPROVED',
  previousHash: last.hash,
  mac,
});

describeEachEngine('audit:verify against someone who can write to the database', (env) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-tamper-'));
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signingKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKeyFile = join(dir, 'audit-public.pem');
  const checkpointsFile = join(dir, 'checkpoints.jsonl');
  const merchantsFile = join(dir, 'merchants.json');
  /** The gateway's settings the verifier shares: its database, key and merchants. */
  const settings = () => ({ ...env(), AUDIT_SIGNING_KEY: signingKey, MERCHANTS_FILE: merchantsFile });
  let failed: string;
  let paid: string;

  beforeAll(async () => {
    writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const token = (id: string) => `tok-${id}-${randomUUID()}`;
    const merchants = ['acme', 'other', 'idle'].map((id) => ({
      id,
      apiKey: `key-${id}`,
      clientTokens: [{ token: token(id), name: 'operations' }],
    }));
    writeFileSync(merchantsFile, JSON.stringify(merchants));
    const stack = await startStack({
      env: settings(),
      sandbox: { activeKeys: merchants.map((m) => m.apiKey) },
    });
    try {
      const as = (merchant: number) => ({ authorization: `Bearer ${merchants[merchant].clientTokens[0].token}` });
      const create = async (merchant: number, input: Record<string, unknown>) => {
        const response = await gql<{ createMobileMoneyDisbursement: { referenceId: string } }>(
          stack.graphqlUrl,
          CREATE,
          { input },
          as(merchant),
        );
        const { referenceId } = response.data!.createMobileMoneyDisbursement;
        await eventually(async () => {
          const { data } = await gql<{ disbursement: { status: string } }>(
            stack.graphqlUrl,
            ONE,
            { referenceId },
            as(merchant),
          );
          return ['SUCCESSFUL', 'FAILED'].includes(data?.disbursement.status ?? '') ? true : undefined;
        }, 200);
        return referenceId;
      };
      paid = await create(0, mobileInput({ amount: '10' }));
      failed = await create(0, mobileInput({ amount: '10', accountNumber: '260971234111' }));
      await create(1, mobileInput({ amount: '20' }));
    } finally {
      // Shutdown signs every chain's head.
      await stack.close();
    }
    const kept = await auditCheckpoint(env().DATABASE_URL, { AUDIT_SIGNING_KEY: signingKey });
    expect(kept.code).toBe(0);
    writeFileSync(checkpointsFile, kept.output);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an untouched database verifies, with the key, with the public key alone, and against the kept checkpoints', async () => {
    const withKey = await auditVerify(env().DATABASE_URL, [], settings());
    expect(withKey.output).toMatch(/merchant acme: \d+ entries verified/);
    expect(withKey.output).toMatch(/merchant idle: 0 entries verified/);
    expect(withKey.code).toBe(0);
    const publicOnly = await auditVerify(
      env().DATABASE_URL,
      ['--public-key', publicKeyFile, '--checkpoints', checkpointsFile],
      { MERCHANTS_FILE: merchantsFile },
    );
    expect(publicOnly.output).toMatch(/merchant other: \d+ entries verified/);
    expect(publicOnly.code).toBe(0);
    expect(`${withKey.output}${publicOnly.output}`).not.toContain(signingKey.split('\n')[1]);
  });

  const tamperings: Tampering[] = [
    {
      name: 'an entry edited',
      merchant: 'acme',
      covered: true,
      sequence: 2,
      tamper: (sql) => sql.run("UPDATE audit_log SET amount = '1.00' WHERE merchant_id = 'acme' AND sequence = 2"),
    },
    {
      name: 'an entry deleted',
      merchant: 'acme',
      covered: true,
      tamper: (sql) => sql.run("DELETE FROM audit_log WHERE merchant_id = 'acme' AND sequence = 3"),
    },
    {
      name: 'two entries swapped',
      merchant: 'acme',
      covered: true,
      sequence: 2,
      async tamper(sql) {
        await sql.run("UPDATE audit_log SET sequence = -1 WHERE merchant_id = 'acme' AND sequence = 2");
        await sql.run("UPDATE audit_log SET sequence = 2 WHERE merchant_id = 'acme' AND sequence = 3");
        await sql.run("UPDATE audit_log SET sequence = 3 WHERE merchant_id = 'acme' AND sequence = -1");
      },
    },
    {
      name: 'an entry edited and every hash after it recomputed, the head left',
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const list = await withMacs(sql, 'acme', await entries(sql, 'acme'));
        list[1] = { ...list[1], amount: '1.00' };
        await rewrite(sql, 'acme', list, false);
      },
    },
    {
      name: 'an entry edited and every hash after it recomputed, the head moved along',
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const list = await withMacs(sql, 'acme', await entries(sql, 'acme'));
        list[1] = { ...list[1], amount: '1.00' };
        await rewrite(sql, 'acme', list, true);
      },
    },
    {
      name: 'the tail cut and the head moved back',
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const list = await withMacs(sql, 'acme', await entries(sql, 'acme'));
        await rewrite(sql, 'acme', list.slice(0, -2), true);
      },
    },
    {
      name: 'a middle entry deleted, the rest renumbered and re-hashed, the head moved',
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const list = await entries(sql, 'acme');
        const kept = list.filter((_entry, index) => index !== 2);
        await rewrite(sql, 'acme', await withMacs(sql, 'acme', kept), true);
      },
    },
    {
      name: "a merchant's whole trail deleted, its head with it",
      merchant: 'other',
      covered: true,
      async tamper(sql) {
        await sql.run("DELETE FROM audit_log WHERE merchant_id = 'other'");
        await sql.run("DELETE FROM merchant_heads WHERE merchant_id = 'other'");
      },
    },
    {
      name: 'a merchant deleted from every table, its checkpoints too',
      merchant: 'other',
      covered: true,
      needsFile: true,
      async tamper(sql) {
        for (const table of ['audit_log', 'merchant_heads', 'audit_checkpoints', 'payouts'])
          await sql.run(`DELETE FROM ${table} WHERE merchant_id = 'other'`);
      },
    },
    {
      name: 'a forged APPROVED entry appended with its hash, the head moved',
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const list = await entries(sql, 'acme');
        await rewrite(sql, 'acme', [...(await withMacs(sql, 'acme', list)), forgedApproved(list.at(-1)!, null)], true);
      },
    },
    {
      name: 'a forged APPROVED entry appended with a made-up keyed value',
      merchant: 'acme',
      covered: false,
      async tamper(sql) {
        const list = await entries(sql, 'acme');
        const forged = forgedApproved(list.at(-1)!, 'a'.repeat(64));
        await rewrite(sql, 'acme', [...(await withMacs(sql, 'acme', list)), forged], true);
      },
    },
    {
      name: 'merchant_heads edited',
      merchant: 'acme',
      covered: true,
      tamper: (sql) =>
        sql.run("UPDATE merchant_heads SET audit_sequence = audit_sequence + 1 WHERE merchant_id = 'acme'"),
    },
    {
      name: 'a chain rewritten and its stored checkpoints removed',
      merchant: 'acme',
      covered: true,
      needsFile: true,
      async tamper(sql) {
        const list = await withMacs(sql, 'acme', await entries(sql, 'acme'));
        list[0] = { ...list[0], actor: 'mallory' };
        await rewrite(sql, 'acme', list, true);
        await sql.run("DELETE FROM audit_checkpoints WHERE merchant_id = 'acme'");
      },
    },
    {
      name: 'a checkpoint forged for a rewritten head',
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const list = await withMacs(sql, 'acme', await entries(sql, 'acme'));
        list[0] = { ...list[0], actor: 'mallory' };
        await rewrite(sql, 'acme', list, true);
        const [head] = await sql.all<{ audit_sequence: number | string; audit_hash: string }>(
          "SELECT audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = 'acme'",
        );
        await sql.run("DELETE FROM audit_checkpoints WHERE merchant_id = 'acme'");
        await sql.run(
          "INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature) VALUES ('acme', ?, ?, ?, ?)",
          Number(head.audit_sequence),
          head.audit_hash,
          new Date().toISOString(),
          Buffer.alloc(64, 7).toString('base64url'),
        );
      },
    },
    {
      name: "a FAILED payout's status set to SUCCESSFUL in payouts",
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const [row] = await sql.all<{ record: string }>(
          "SELECT record FROM payouts WHERE merchant_id = 'acme' AND reference_id = ?",
          failed,
        );
        const record = { ...JSON.parse(row.record), status: 'SUCCESSFUL', message: null };
        await sql.run(
          "UPDATE payouts SET status = 'SUCCESSFUL', record = ? WHERE merchant_id = 'acme' AND reference_id = ?",
          JSON.stringify(record),
          failed,
        );
      },
    },
    {
      name: "a payout's amount changed from 10 to 9999 in payouts",
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const [row] = await sql.all<{ record: string }>(
          "SELECT record FROM payouts WHERE merchant_id = 'acme' AND reference_id = ?",
          paid,
        );
        const record = { ...JSON.parse(row.record), amount: '9999.00' };
        await sql.run(
          'UPDATE payouts SET amount_minor = 999900, record = ? WHERE merchant_id = ? AND reference_id = ?',
          JSON.stringify(record),
          'acme',
          paid,
        );
      },
    },
    {
      name: "a payout's account number changed in payouts",
      merchant: 'acme',
      covered: true,
      async tamper(sql) {
        const [row] = await sql.all<{ record: string }>(
          "SELECT record FROM payouts WHERE merchant_id = 'acme' AND reference_id = ?",
          paid,
        );
        const record = { ...JSON.parse(row.record), accountNumber: '260979999999' };
        await sql.run(
          "UPDATE payouts SET record = ? WHERE merchant_id = 'acme' AND reference_id = ?",
          JSON.stringify(record),
          paid,
        );
      },
    },
  ];

  it.each(tamperings.map((t) => [t.name, t] as const))(
    '%s: audit:verify exits non-zero naming the merchant',
    async (_name, t) => {
      const copy = await copyDatabase(ownerUrl(env()));
      try {
        await asInsider(copy.url, t.tamper);
        const named = new RegExp(`merchant ${t.merchant}\\b.*${t.sequence ? `sequence ${t.sequence}\\b` : ''}`);
        const runs: [string[], Record<string, string>][] = [
          [t.needsFile ? ['--checkpoints', checkpointsFile] : [], { ...settings(), DATABASE_URL: copy.url }],
        ];
        if (t.covered)
          runs.push([
            ['--public-key', publicKeyFile, ...(t.needsFile ? ['--checkpoints', checkpointsFile] : [])],
            { MERCHANTS_FILE: merchantsFile },
          ]);
        for (const [args, extra] of runs) {
          const result = await auditVerify(copy.url, args, extra);
          expect(result.output).toMatch(named);
          expect(result.code).toBe(1);
        }
      } finally {
        await copy.remove();
      }
    },
  );
});
