import Database from 'better-sqlite3';
import { generateKeyPairSync } from 'node:crypto';
import { migratePostgres, migrateSqlite } from '../../src/database/schema.migrate';
import { postgresPool } from '../../src/database/postgres.open';
import { MIGRATIONS } from '../../src/database/schema.migrations';
import { AuditDraft, chainHash, GENESIS_HASH } from '../../src/disbursements/audit.entry';
import { asInsider, auditVerify } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { startStack } from '../support/stack';

jest.setTimeout(60_000);

const draft = (n: number): AuditDraft => ({
  at: `2026-01-0${n}T00:00:00.000Z`,
  actor: 'alice',
  action: 'EXPORTED',
  referenceId: null,
  status: null,
  amount: null,
  currency: null,
  detail: `export ${n}`,
});

/** A database as schema version 2 left it: three entries of merchant `legacy`, chained without a key. */
async function legacyTrail(url: string): Promise<void> {
  const before = MIGRATIONS.filter((m) => m.version <= 2);
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    try {
      migrateSqlite(db, before);
      let previous = GENESIS_HASH;
      for (const n of [1, 2, 3]) {
        const d = draft(n);
        const hash = chainHash(previous, n, d);
        db.prepare(
          `INSERT INTO audit_log (merchant_id, sequence, at, actor, action, detail, hash, previous_hash)
           VALUES ('legacy', ?, ?, ?, ?, ?, ?, ?)`,
        ).run(n, d.at, d.actor, d.action, d.detail, hash, previous);
        previous = hash;
      }
      db.prepare(
        "INSERT INTO merchant_heads (merchant_id, change_position, audit_sequence, audit_hash) VALUES ('legacy', 0, 3, ?)",
      ).run(previous);
    } finally {
      db.close();
    }
    return;
  }
  const pool = postgresPool(url, { maxConnections: 1 });
  try {
    await migratePostgres(pool, before);
    // Version 2's trigger numbered and chained entries itself.
    for (const n of [1, 2, 3]) {
      const d = draft(n);
      await pool.query(
        "INSERT INTO audit_log (merchant_id, at, actor, action, detail) VALUES ('legacy', $1, $2, $3, $4)",
        [d.at, d.actor, d.action, d.detail],
      );
    }
  } finally {
    await pool.end();
  }
}

describeEachEngine('a trail written before the chain was keyed', (env) => {
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('verifies once the upgraded gateway has signed it, and an unkeyed entry after that signature fails', async () => {
    await legacyTrail(ownerUrl(env()));
    // The upgraded gateway migrates to version 5 and signs every head at start.
    const stack = await startStack({ env: { ...env(), AUDIT_SIGNING_KEY: signingKey } });
    await stack.close();
    const settings = { AUDIT_SIGNING_KEY: signingKey };
    const upgraded = await auditVerify(env().DATABASE_URL, [], settings);
    expect(upgraded.output).toMatch(/^merchant legacy: 3 entries verified$/m);
    expect(upgraded.code).toBe(0);

    await asInsider(ownerUrl(env()), async (sql) => {
      const [head] = await sql.all<{ audit_hash: string }>(
        "SELECT audit_hash FROM merchant_heads WHERE merchant_id = 'legacy'",
      );
      const d = draft(4);
      const hash = chainHash(head.audit_hash, 4, d);
      await sql.run(
        `INSERT INTO audit_log (merchant_id, sequence, at, actor, action, detail, hash, previous_hash)
         VALUES ('legacy', 4, ?, ?, ?, ?, ?, ?)`,
        d.at,
        d.actor,
        d.action,
        d.detail,
        hash,
        head.audit_hash,
      );
      await sql.run("UPDATE merchant_heads SET audit_sequence = 4, audit_hash = ? WHERE merchant_id = 'legacy'", hash);
    });
    const forged = await auditVerify(env().DATABASE_URL, [], settings);
    expect(forged.output).toMatch(/merchant legacy: the entry at sequence 4 does not verify: it has no keyed value/);
    expect(forged.code).toBe(1);
  });
});
