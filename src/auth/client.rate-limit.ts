import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/** A token's quota key from its SHA-256 digest: the registry derives it once per configured token. */
export const tokenQuotaKey = (digest: Buffer): string => `t:${digest.toString('base64url').slice(0, 22)}`;

/** The client a request counts against: its token (hashed), or its address when access is open. */
export function clientKey(authorization: string | undefined, remoteAddress: string | undefined): string {
  const token = /^Bearer\s+(\S+)/i.exec(authorization ?? '')?.[1];
  return token ? tokenQuotaKey(createHash('sha256').update(token).digest()) : `ip:${remoteAddress ?? 'unknown'}`;
}

/** Operations per client per minute (rate-limiter-flexible); `undefined` limiter means no limit. */
export class ClientRateLimit {
  constructor(private readonly limiter: RateLimiterAbstract | undefined) {}

  /**
   * One process (the embedded file): its quotas are exact in memory, and a quota is not a record
   * worth a write per operation.
   */
  static inMemory(perMinute: number): ClientRateLimit {
    return new ClientRateLimit(perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : undefined);
  }

  /**
   * One quota across replicas, in PostgreSQL's `client_quotas` (created by the schema's migrations,
   * its ended rows swept with the store's retention); while the database is away each replica counts
   * in memory instead of failing.
   */
  static inPostgres(pool: Pool, perMinute: number): ClientRateLimit {
    if (perMinute <= 0) return new ClientRateLimit(undefined);
    return new ClientRateLimit(
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'client_quotas',
        tableCreated: true,
        clearExpiredByTimeout: false,
        points: perMinute,
        duration: 60,
        insuranceLimiter: new RateLimiterMemory({ points: perMinute, duration: 60 }),
      }),
    );
  }

  /** Takes `points` (one per operation, one more per payout beyond the first); seconds to wait when over the quota, otherwise undefined. */
  async retryAfter(key: string, points = 1): Promise<number | undefined> {
    if (!this.limiter) return undefined;
    try {
      await this.limiter.consume(key, points);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }
}
