import { RelayJob } from '../disbursements/relay.job';

/** A job this replica holds until `leaseUntil`; after that another replica may take it. */
export interface LeasedRelayJob extends RelayJob {
  /** Attempts recorded so far. */
  attempts: number;
  /** Names this hold; a retry or finish under a lease someone else took since changes nothing. */
  lease: string;
}

/** How many of one merchant's jobs a caller may hold at once, and how many it holds now, by merchant id. */
export interface LeaseFairness {
  perMerchant: number;
  busy: ReadonlyMap<string, number>;
}

/** Up to `limit` of the candidates, taken one merchant at a time in turn; each list is in the order to send. */
export function inTurn<T>(byMerchant: readonly T[][], limit: number): T[] {
  const out: T[] = [];
  for (let round = 0; out.length < limit; round += 1) {
    let any = false;
    for (const jobs of byMerchant) {
      if (round >= jobs.length) continue;
      any = true;
      out.push(jobs[round]);
      if (out.length >= limit) break;
    }
    if (!any) break;
  }
  return out;
}

/** A queued job as a queue's candidates list it: due at `dueAt`, in its merchant's order. */
export interface DueJob {
  merchantId: string;
  referenceId: string;
  dueAt: number;
}

/**
 * Which of the due jobs (each merchant's earliest first, any order between merchants) a lease
 * takes: at most `limit`, merchants in turn (the one whose earliest job waits longest first), and
 * no more of a merchant than `fairness.perMerchant` less what the caller already holds of it.
 */
export function chooseDue<T extends DueJob>(due: readonly T[], limit: number, fairness?: LeaseFairness): T[] {
  const byMerchant = new Map<string, T[]>();
  for (const job of due) byMerchant.set(job.merchantId, [...(byMerchant.get(job.merchantId) ?? []), job]);
  const allowed = [...byMerchant].map(([merchantId, jobs]) => {
    const room = fairness ? Math.max(0, fairness.perMerchant - (fairness.busy.get(merchantId) ?? 0)) : jobs.length;
    return jobs.sort((a, b) => a.dueAt - b.dueAt).slice(0, room);
  });
  allowed.sort((a, b) => (a[0]?.dueAt ?? Infinity) - (b[0]?.dueAt ?? Infinity));
  return inTurn(allowed, limit);
}

/**
 * Relay work, stored in the database every replica shares (the embedded file, or PostgreSQL), so
 * a restart or a lost replica never ends a relay early: whichever replica is alive takes it.
 */
export interface RelayQueue {
  /**
   * Takes up to `limit` jobs due at `now`, each held by this caller until `leaseUntil`: merchants in
   * turn (one job of each, then a second of each, ...), each merchant's earliest first, and no more
   * of a merchant than `fairness.perMerchant` less what the caller already holds of it (`busy`).
   */
  lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]>;
  /** Records one more attempt and makes the job due again at `at`. */
  retry(job: LeasedRelayJob, at: Date): Promise<void>;
  /** Delivered, or given up: the job is gone. */
  finish(job: LeasedRelayJob): Promise<void>;
  close(): Promise<void>;
}
