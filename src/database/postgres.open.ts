import { Pool } from 'pg';
import { migratePostgres } from './schema.migrate';

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

/** Connects and migrates; throws when the server cannot be reached or its schema is newer than this build. */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Pool> {
  const pool = postgresPool(url, opts);
  try {
    await migratePostgres(pool);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}
