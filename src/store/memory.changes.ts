import { comparePositions, positionTime } from '../disbursements/disbursement.changes';
import { Disbursement } from '../disbursements/disbursement.model';
import { LoggedChange, START_POSITION } from '../disbursements/disbursement.ports';

export interface MemoryChangeLogOptions {
  /** How long a change is kept (EVENT_RETENTION_SECONDS). */
  retentionMs: number;
  /** Changes kept per merchant at most; past it the oldest go first. */
  maxPerMerchant: number;
  now: () => number;
}

/** A logged change, its record kept as JSON text. */
interface Entry {
  position: string;
  json: string;
}

/** One merchant's changes, oldest first, as a ring: appends and drops from the front cost O(1). */
class Ring {
  private readonly slots: Entry[] = [];
  private start = 0;

  get size(): number {
    return this.slots.length - this.start;
  }

  at(i: number): Entry {
    return this.slots[this.start + i];
  }

  push(entry: Entry): void {
    this.slots.push(entry);
  }

  shift(): void {
    this.start += 1;
    // Compacts once the dropped half outweighs the rest, so the array never grows without end.
    if (this.start > 1024 && this.start * 2 > this.slots.length) {
      this.slots.splice(0, this.start);
      this.start = 0;
    }
  }

  /** Index of the first entry after `position`. */
  firstAfter(position: string): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (comparePositions(this.at(mid).position, position) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/**
 * The change log of the memory store: a bounded ring per merchant, kept `retentionMs`, with
 * positions numbered like a Redis Stream's (`<ms>-<seq>`, increasing). Records are kept as JSON,
 * so no reader can alter what another reads.
 */
export class MemoryChangeLog {
  private readonly rings = new Map<string, Ring>();
  private lastMs = 0;
  private seq = 0;

  constructor(private readonly opts: MemoryChangeLogOptions) {}

  append(record: Disbursement): void {
    const now = this.opts.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else {
      this.seq += 1;
    }
    let ring = this.rings.get(record.merchantId);
    if (!ring) {
      ring = new Ring();
      this.rings.set(record.merchantId, ring);
    }
    ring.push({ position: `${this.lastMs}-${this.seq}`, json: JSON.stringify(record) });
    while (ring.size > this.opts.maxPerMerchant) ring.shift();
    this.trim(record.merchantId, ring);
  }

  after(merchantId: string, position: string, limit: number): LoggedChange[] {
    const ring = this.kept(merchantId);
    if (!ring) return [];
    const found: LoggedChange[] = [];
    for (let i = ring.firstAfter(position); i < ring.size && found.length < limit; i += 1) {
      const { position: at, json } = ring.at(i);
      found.push({ position: at, record: JSON.parse(json) as Disbursement });
    }
    return found;
  }

  has(merchantId: string, position: string): boolean {
    const ring = this.kept(merchantId);
    if (!ring) return false;
    const i = ring.firstAfter(position) - 1;
    return i >= 0 && ring.at(i).position === position;
  }

  latest(merchantId: string): string {
    const ring = this.kept(merchantId);
    return ring && ring.size > 0 ? ring.at(ring.size - 1).position : START_POSITION;
  }

  private kept(merchantId: string): Ring | undefined {
    const ring = this.rings.get(merchantId);
    if (ring) this.trim(merchantId, ring);
    return this.rings.get(merchantId);
  }

  /** Drops what is older than the retention; an emptied ring goes with it. */
  private trim(merchantId: string, ring: Ring): void {
    const cutoff = this.opts.now() - this.opts.retentionMs;
    while (ring.size > 0 && positionTime(ring.at(0).position) <= cutoff) ring.shift();
    if (ring.size === 0) this.rings.delete(merchantId);
  }
}
