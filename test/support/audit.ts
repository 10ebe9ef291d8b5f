import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, rmSync } from 'node:fs';
import { escapeIdentifier } from 'pg';
import { join } from 'node:path';
import { withClient } from './postgres';

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

/** A database as an insider sees it: any SQL, with the append-only guards lifted for the length of `use`. */
export interface InsiderSql {
  all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  run(sql: string, ...params: unknown[]): Promise<void>;
}

/**
 * Runs `use` as someone who can write to the database would: on the file, the guard triggers dropped and put
 * back after; on PostgreSQL, as superuser with every trigger off for the transaction (session_replication_role).
 * SQL is written with `?` placeholders for both.
 */
export async function asInsider(databaseUrl: string, use: (sql: InsiderSql) => Promise<void>): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    try {
      const guards = db
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE 'audit_%'")
        .all() as { name: string; sql: string }[];
      for (const guard of guards) db.exec(`DROP TRIGGER ${guard.name}`);
      await use({
        all: async <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
        run: async (sql, ...params) => void db.prepare(sql).run(...params),
      });
      for (const guard of guards) db.exec(guard.sql);
    } finally {
      db.close();
    }
    return;
  }
  await withClient(databaseUrl, async (client) => {
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await use({
      all: async <T>(sql: string, ...params: unknown[]) => (await client.query(numbered(sql), params)).rows as T[],
      run: async (sql, ...params) => void (await client.query(numbered(sql), params)),
    });
    await client.query('COMMIT');
  });
}

/** A copy of a database (a file beside it, or a PostgreSQL database from it as template) and how to remove it. */
export async function copyDatabase(databaseUrl: string): Promise<{ url: string; remove(): Promise<void> }> {
  const suffix = randomUUID().replaceAll('-', '');
  if (databaseUrl.startsWith('sqlite:')) {
    const path = `${databaseUrl.slice('sqlite:'.length)}.${suffix}`;
    copyFileSync(databaseUrl.slice('sqlite:'.length), path);
    return { url: `sqlite:${path}`, remove: async () => rmSync(path, { force: true }) };
  }
  const url = new URL(databaseUrl);
  const source = url.pathname.slice(1);
  const name = `copy_${suffix}`;
  const server = new URL(databaseUrl);
  server.pathname = '/postgres';
  await withClient(server.toString(), (client) =>
    client.query(`CREATE DATABASE ${escapeIdentifier(name)} TEMPLATE ${escapeIdentifier(source)}`),
  );
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    remove: async () => {
      await withClient(databaseUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`),
      );
    },
  };
}
