import { Pool } from 'pg';
import { pgQuery } from './postgres.query';
import { migratePostgres } from './schema.migrate';
import { MIGRATIONS } from './schema.migrations';
import { sql } from './sql.dialect';

export interface PostgresOptions {
  /** Connections this process holds at most. */
  maxConnections?: number;
  /** Told of a pool client's error (a connection that broke while idle). */
  onError?: (error: Error) => void;
}

/**
 * A pool on DATABASE_URL. Nothing waits long on a server that is away: a connection attempt gives up
 * after 2 s and a query after 10 s, so a create answers SERVICE_UNAVAILABLE instead of hanging; the
 * pool opens new connections as queries come, so the gateway recovers by itself when the server does.
 */
export function postgresPool(url: string, opts: PostgresOptions = {}): Pool {
  const pool = new Pool({
    connectionString: url,
    max: opts.maxConnections ?? 16,
    connectionTimeoutMillis: 2000,
    query_timeout: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'payout-gateway',
  });
  // Without a listener an idle connection's error (the server restarting) would end the process.
  pool.on('error', (error) => opts.onError?.(error));
  return pool;
}

/**
 * Connects and migrates; throws when the server cannot be reached or its schema is newer than this
 * build. With `ownerUrl` (DATABASE_OWNER_URL) the owner migrates, over a connection of its own
 * closed after, and grants the role of `url` what the gateway needs and nothing more.
 */
export async function openPostgres(url: string, opts: PostgresOptions & { ownerUrl?: string } = {}): Promise<Pool> {
  const pool = postgresPool(url, opts);
  try {
    if (opts.ownerUrl === undefined) await migratePostgres(pool);
    else await migrateAsOwner(opts.ownerUrl, pool);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

async function migrateAsOwner(ownerUrl: string, gateway: Pool): Promise<void> {
  const { rows } = await gateway.query<{ role: string }>('SELECT current_user AS role');
  const owner = postgresPool(ownerUrl, { maxConnections: 1 });
  try {
    const { rows: same } = await pgQuery<{ same: boolean }>(owner, sql`SELECT current_user = ${rows[0].role} AS same`);
    await migratePostgres(owner, MIGRATIONS, same[0].same ? undefined : rows[0].role);
  } finally {
    await owner.end();
  }
}
