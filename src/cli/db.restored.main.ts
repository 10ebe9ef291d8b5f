import '../node.supported';
import { postgresRecordRewind, sqliteFacts } from '../database/history.rewinds';
import { onEngine } from '../database/database.target';
import { postgresPool } from '../database/postgres.open';
import { migratePostgres } from '../database/schema.migrate';
import { DatabaseInUseError, openSqlite } from '../database/sqlite.open';
import { CommandError, runDatabaseCommand } from './database.command';

const USAGE = 'usage: npm run db:restored   (reads DATABASE_URL, and DATABASE_OWNER_URL when set)';

const REASON = 'recorded by db:restored (a restore or a failover)';

/**
 * `npm run db:restored`: records that the database of DATABASE_URL went back in time (PostgreSQL
 * restored from a dump or a base backup, or a failover to a standby that may lack the last writes).
 * Replicas running on it learn it within a second; for RESEND_AFTER_SECONDS from then on, a payout the
 * provider does not show when asked before its send is not sent (it may still be taking one in).
 */
runDatabaseCommand(USAGE, async (target) => {
  const at = Date.now();
  await onEngine<Promise<void>>(target, {
    sqlite: async ({ path }) => {
      let handle: ReturnType<typeof openSqlite>;
      try {
        handle = openSqlite(path);
      } catch (error) {
        if (error instanceof DatabaseInUseError) throw new CommandError(`${error.message}: stop the gateway first`);
        throw error;
      }
      try {
        sqliteFacts(handle.db).recordRewind(at, REASON);
      } finally {
        handle.close();
      }
    },
    postgres: async ({ url }) => {
      // The owner (DATABASE_OWNER_URL, when the gateway runs as a role of its own) migrates and records it.
      const pool = postgresPool(process.env.DATABASE_OWNER_URL ?? url, { maxConnections: 1 });
      try {
        // A dump from before this version lacks the table: the migrations bring it.
        await migratePostgres(pool);
        await postgresRecordRewind(pool, at, REASON);
      } finally {
        await pool.end();
      }
    },
  });
  return `recorded at ${new Date(at).toISOString()}: history went back; new referenceIds are checked with the provider before they are sent`;
});
