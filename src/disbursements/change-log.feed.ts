import { Repeater } from '@repeaterjs/repeater';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SharedChangeReads } from './change-log.reads';
import { cursorExpired, unknownCursor } from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { DisbursementEvents, DisbursementStore, Merchant, OnListening } from './disbursement.ports';
import { STOPPED, untilStopped } from './wait.interrupt';

/** One change of a merchant's payouts as a subscriber gets it: the cursor to resume after, and the record. */
export interface Change {
  cursor: string;
  record: Disbursement;
}

/** Changes read from the log in one round trip. */
const BATCH = 100;

/** A log position: the merchant's changes are numbered 1, 2, 3, ... */
const POSITION = /^\d{1,15}$/;

/**
 * A cursor is a log position and a MAC over it and the merchant, keyed by the merchant's provider
 * key, which every replica has: a client cannot forge one, and one merchant's cursor fails the
 * check for any other merchant, so it never reads another merchant's log.
 */
function mac(merchant: Merchant, position: string): string {
  return createHmac('sha256', merchant.apiKey)
    .update(`disbursement-change\n${merchant.id}\n${position}`)
    .digest('base64url')
    .slice(0, 22);
}

export function sealCursor(merchant: Merchant, position: string): string {
  return `${position}.${mac(merchant, position)}`;
}

/** The position a cursor names, or undefined when this gateway did not give it to this merchant. */
export function openCursor(merchant: Merchant, cursor: string): string | undefined {
  const [position, given, ...rest] = cursor.split('.');
  if (rest.length > 0 || given === undefined || !POSITION.test(position)) return undefined;
  const expected = Buffer.from(mac(merchant, position));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? position : undefined;
}

/** Whether a logged record is the change that rang, or a later one of the same payout. */
const shows = (logged: Disbursement, rang: Disbursement) =>
  logged.referenceId === rang.referenceId && logged.version >= rang.version;

/** How many recently sent changes a subscriber remembers, to let the bells they ring pass without a read. */
const RECENT = 1000;

/** The versions a subscriber sent last, per payout, the oldest forgotten first. */
class RecentlySent {
  private readonly versions = new Map<string, number>();

  note(record: Disbursement): void {
    this.versions.delete(record.referenceId);
    this.versions.set(record.referenceId, record.version);
    if (this.versions.size > RECENT) this.versions.delete(this.versions.keys().next().value as string);
  }

  has(record: Disbursement): boolean {
    return (this.versions.get(record.referenceId) ?? -1) >= record.version;
  }
}

/**
 * Every change of a merchant's payouts, in the order the store applied them, read from the store's
 * change log. With `after`, the changes after that cursor come first; the log is then read on from
 * the last position sent each time a change is published, so replay and live changes meet with no
 * gap and no duplicate: a published change only rings the bell, the log says what changed. Live
 * subscribers of one process share the reads a change sets off (change-log.reads.ts).
 *
 * Throws (before anything is sent) `BAD_USER_INPUT` for a cursor this merchant was never given and
 * `CURSOR_EXPIRED` for one whose change is no longer kept.
 */
export async function watchChanges(
  store: DisbursementStore,
  shared: SharedChangeReads,
  events: DisbursementEvents,
  merchant: Merchant,
  after?: string | null,
  onListening: OnListening = () => {},
): Promise<AsyncIterableIterator<Change>> {
  let from: string | undefined;
  if (after !== undefined && after !== null) {
    from = openCursor(merchant, after);
    if (from === undefined) throw unknownCursor();
    if (!(await store.hasChange(merchant.id, from))) throw cursorExpired();
  }
  return new Repeater<Change>(async (push, stop) => {
    const waits = untilStopped(stop);
    const bell = events.watchMerchant(merchant.id)[Symbol.asyncIterator]();
    // The first next() starts listening; the log is read only once listening is active.
    let rung = bell.next();
    try {
      if ((await waits.wait(events.merchantListening(merchant.id))) === STOPPED) return;
      onListening();
      const latest = from ?? (await waits.wait(store.latestChange(merchant.id)));
      if (latest === STOPPED) return;
      let position = latest;
      // The change that rang, until a page shows it. The first pages (replay, and what came before
      // listening) are read alone: a shared read could have begun before them.
      let rang: Disbursement | undefined;
      const sent = new RecentlySent();
      for (;;) {
        let together = rang !== undefined;
        for (;;) {
          const read = together
            ? shared.changesAfter(merchant.id, position, BATCH)
            : store.changesAfter(merchant.id, position, BATCH);
          const batch = await waits.wait(read);
          if (batch === STOPPED) return;
          for (const change of batch) {
            await push({ cursor: sealCursor(merchant, change.position), record: change.record });
            position = change.position;
            sent.note(change.record);
            if (rang && shows(change.record, rang)) rang = undefined;
          }
          if (batch.length === BATCH) continue;
          // A shared read that began before the change that rang was logged: read once more, alone.
          if (rang && together) {
            together = false;
            continue;
          }
          break;
        }
        // A change already sent (a page read for an earlier bell reached it) needs no read: every
        // change after it rings a bell of its own.
        do {
          const next = await waits.wait(rung);
          if (next === STOPPED || next.done) return;
          rang = next.value;
          rung = bell.next();
        } while (sent.has(rang));
      }
    } finally {
      // A Repeater ends only when stopped, not when this function returns.
      stop();
      await bell.return?.();
    }
  });
}
