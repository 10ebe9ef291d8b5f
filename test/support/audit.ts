import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { withClient } from './postgres';

const VERIFY = join(__dirname, '..', '..', 'dist', 'cli', 'audit.verify.main.js');

/** `npm run audit:verify` once built (jest's globalSetup builds dist/): its exit code and everything it printed. */
export function auditVerify(
  databaseUrl: string,
  args: string[] = [],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VERIFY, ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
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
  const change = "UPDATE audit_log SET amount = '1.00' WHERE merchant_id = ? AND sequence = ?";
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    try {
      const guard = db
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'audit_log_no_update'")
        .pluck()
        .get() as string;
      db.exec('DROP TRIGGER audit_log_no_update');
      if (db.prepare(change).run(merchantId, sequence).changes !== 1) throw new Error(`no entry ${sequence}`);
      db.exec(guard);
    } finally {
      db.close();
    }
    return;
  }
  await withClient(databaseUrl, async (client) => {
    await client.query('BEGIN');
    await client.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change');
    const { rowCount } = await client.query(change.replace('?', '$1').replace('?', '$2'), [merchantId, sequence]);
    if (rowCount !== 1) throw new Error(`no entry ${sequence}`);
    await client.query('ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_change');
    await client.query('COMMIT');
  });
}
