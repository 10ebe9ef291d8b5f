import { sql } from '../database/sql.dialect';

/** A batch of final payouts not written since `before`: what RECORD_RETENTION_SECONDS removes, one audited removal each. */
export const finalBefore = (before: number) =>
  sql`SELECT merchant_id, reference_id FROM payouts WHERE final = 1 AND written_at < ${before} ORDER BY written_at LIMIT 1000`;

/** Two days, so a day is past in every zone (PAYOUT_DAY_TIMEZONE is at most 14 hours from UTC) before its counters go. */
const SPENT_AFTER_MS = 2 * 86_400_000;

/**
 * The day's counters that hold nothing any more, of days that are past everywhere: no payout can be
 * reserved on a past day again (a new one counts on today or the day it is scheduled for), and one
 * at zero has nothing left to give back. Both engines prune them alike, so the table keeps only the
 * days that still matter.
 */
export const spentCounters = (now: number) =>
  sql`DELETE FROM daily_reservations WHERE minor <= 0 AND day < ${new Date(now - SPENT_AFTER_MS).toISOString().slice(0, 10)}`;
