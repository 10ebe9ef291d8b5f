import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseCopy, InsiderSql } from './engine.types';
import { engineServing } from './engines';

export type { InsiderSql } from './engine.types';

const VERIFY = join(__dirname, '..', '..', 'dist', 'cli', 'audit.verify.main.js');
const CHECKPOINT = join(__dirname, '..', '..', 'dist', 'cli', 'audit.checkpoint.main.js');

/** `npm run audit:verify` once built (jest's globalSetup builds dist/): its exit code and everything it printed. */
export function auditVerify(
  databaseUrl: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return auditCli(VERIFY, databaseUrl, args, env);
}

/** `npm run audit:checkpoint` once built: its exit code and everything it printed. */
export function auditCheckpoint(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return auditCli(CHECKPOINT, databaseUrl, [], env);
}

function auditCli(
  script: string,
  databaseUrl: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The same URL with a password in it: the test server does not ask for one, so it only shows what gets printed. */
export function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

/** What someone with the database's keys could do: lift the guard, change an entry's amount, put the guard back. */
export async function alterAuditAmount(databaseUrl: string, merchantId: string, sequence: number): Promise<void> {
  await asInsider(databaseUrl, async (sql) => {
    const where = 'WHERE merchant_id = ? AND sequence = ?';
    if ((await sql.all(`SELECT sequence FROM audit_log ${where}`, merchantId, sequence)).length !== 1)
      throw new Error(`no entry ${sequence}`);
    await sql.run(`UPDATE audit_log SET amount = '1.00' ${where}`, merchantId, sequence);
  });
}

/** Runs `use` as someone who can write to the database at `databaseUrl` would (its engine's asInsider). */
export function asInsider(databaseUrl: string, use: (sql: InsiderSql) => Promise<void>): Promise<void> {
  return engineServing(databaseUrl).asInsider(databaseUrl, use);
}

/** A copy of the database at `databaseUrl`, on its engine, and how to remove it. */
export function copyDatabase(databaseUrl: string): Promise<DatabaseCopy> {
  return engineServing(databaseUrl).copy(databaseUrl);
}

/**
 * What an insider cutting a merchant's tail removes: its last payouts, every entry from their first
 * on, the checkpoints above what is left, and the head moved back: the database alone agrees.
 */
export async function cutTail(sql: InsiderSql, merchant: string): Promise<void> {
  const rows = await sql.all<{ sequence: number | string; reference_id: string | null; hash: string }>(
    'SELECT sequence, reference_id, hash FROM audit_log WHERE merchant_id = ? ORDER BY sequence',
    merchant,
  );
  // From the first entry of the last payout, back until no payout of the cut has an entry before it.
  const firstOf = (ref: string | null) => rows.findIndex((row) => row.reference_id === ref);
  let from = firstOf(rows.at(-1)!.reference_id);
  for (;;) {
    const earlier = Math.min(...rows.slice(from).map((row) => firstOf(row.reference_id)));
    if (earlier === from) break;
    from = earlier;
  }
  const last = rows[from - 1];
  await sql.run('DELETE FROM audit_log WHERE merchant_id = ? AND sequence > ?', merchant, Number(last.sequence));
  await sql.run(
    'DELETE FROM audit_checkpoints WHERE merchant_id = ? AND sequence > ?',
    merchant,
    Number(last.sequence),
  );
  for (const ref of new Set(rows.slice(from).map((row) => row.reference_id)))
    await sql.run('DELETE FROM payouts WHERE merchant_id = ? AND reference_id = ?', merchant, ref);
  await sql.run(
    'UPDATE merchant_heads SET audit_sequence = ?, audit_hash = ? WHERE merchant_id = ?',
    Number(last.sequence),
    last.hash,
    merchant,
  );
}
