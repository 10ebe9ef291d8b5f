import { randomUUID } from 'node:crypto';
import { inTurn, LeasedRelayJob, LeaseFairness, RelayJob, RelayQueue } from './relay.queue';

interface Entry {
  job: RelayJob;
  attempts: number;
  dueAt: number;
  lease?: string;
}

const keyOf = (job: RelayJob) => `${job.merchantId}\u0000${job.referenceId}`;

/** One process's relay work: it lives as long as the process, like the memory store's records. */
export class MemoryRelayQueue implements RelayQueue {
  private readonly entries = new Map<string, Entry>();

  async enqueue(job: RelayJob, at: Date): Promise<void> {
    const key = keyOf(job);
    if (!this.entries.has(key)) this.entries.set(key, { job, attempts: 0, dueAt: at.getTime() });
  }

  async lease(now: Date, limit: number, leaseUntil: Date, fairness?: LeaseFairness): Promise<LeasedRelayJob[]> {
    const byMerchant = new Map<string, Entry[]>();
    for (const entry of this.entries.values()) {
      if (entry.dueAt > now.getTime()) continue;
      const list = byMerchant.get(entry.job.merchantId) ?? [];
      list.push(entry);
      byMerchant.set(entry.job.merchantId, list);
    }
    const allowed = [...byMerchant].map(([merchantId, list]) => {
      const room = fairness ? Math.max(0, fairness.perMerchant - (fairness.busy.get(merchantId) ?? 0)) : list.length;
      return list.sort((a, b) => a.dueAt - b.dueAt).slice(0, room);
    });
    // The merchant whose earliest job waits longest goes first.
    allowed.sort((a, b) => (a[0]?.dueAt ?? Infinity) - (b[0]?.dueAt ?? Infinity));
    const due = inTurn(allowed, limit);
    return due.map((entry) => {
      entry.lease = randomUUID();
      entry.dueAt = leaseUntil.getTime();
      return { ...entry.job, attempts: entry.attempts, lease: entry.lease };
    });
  }

  async retry(job: LeasedRelayJob, at: Date): Promise<void> {
    const entry = this.held(job);
    if (!entry) return;
    entry.attempts = job.attempts + 1;
    entry.dueAt = at.getTime();
    entry.lease = undefined;
  }

  async finish(job: LeasedRelayJob): Promise<void> {
    if (this.held(job)) this.entries.delete(keyOf(job));
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  private held(job: LeasedRelayJob): Entry | undefined {
    const entry = this.entries.get(keyOf(job));
    return entry?.lease === job.lease ? entry : undefined;
  }
}
