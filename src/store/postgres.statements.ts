import { KeyedDraft } from '../disbursements/audit.entry';
import { Reservation } from '../disbursements/disbursement.model';
import { RelayJob } from '../disbursements/relay.job';
import { enqueueRelayJob } from '../database/relay-jobs.statements';
import { compile, raw } from '../database/sql.dialect';
import {
  columnValues,
  createdAtOf,
  insertPayoutSql,
  PayoutColumns,
  updatePayoutSet,
  WRITTEN_COLUMNS,
} from './payout.row';
import { ClaimStep, EraseStep, RewriteStep } from './payout.steps';

// PostgreSQL's writes, each one statement in autocommit, so one round trip: the row, its reservation
// (taken or released), its change-log entry, its relay job and its audit entries commit together or
// not at all (CTEs that run only when the write did). Every write takes the merchant's head row last
// (the chain's and the change log's triggers), and the day's reservation counters in actor order
// before it: a change after its payout's row, a reserving claim before the new row it inserts, which
// no other write holds. So none waits on another in a cycle, and the head row's lock is held only
// until the statement's own commit, inside the server.

export const dollar = (index: number) => `$${index}`;

/** A statement with its values, named by its shape so each shape is prepared once per connection. */
export interface Statement {
  name: string;
  text: string;
  values: unknown[];
}

/** Values in order, each answered with its placeholder. */
class Values {
  readonly list: unknown[] = [];
  add(value: unknown): string {
    this.list.push(value);
    return `$${this.list.length}`;
  }
}

/** Each written column's PostgreSQL type, for placeholders outside a VALUES list. */
const COLUMN_TYPES: Record<keyof PayoutColumns, string> = {
  written_at: 'bigint',
  status: 'text',
  channel: 'text',
  currency: 'text',
  amount_minor: 'bigint',
  final: 'integer',
  due_at: 'bigint',
  due_kind: 'text',
  leased_until: 'bigint',
  record: 'text',
};

/**
 * The written columns' placeholders after the keys ($1, $2), in WRITTEN_COLUMNS order (`typed`: each
 * with its type), and the two the change log reuses.
 */
function columnParams(v: Values, columns: PayoutColumns, typed = false) {
  const placeholders = columnValues(columns).map(
    (value, i) => `${v.add(value)}${typed ? `::${COLUMN_TYPES[WRITTEN_COLUMNS[i]]}` : ''}`,
  );
  const of = (name: (typeof WRITTEN_COLUMNS)[number]) => placeholders[WRITTEN_COLUMNS.indexOf(name)];
  return { placeholders, written_at: of('written_at'), record: of('record') };
}

/**
 * Gives a reservation back when the write `after` named happened; answers what later steps read
 * from instead of `after`, so the counters are locked before the merchant's head row.
 */
function released(v: Values, held: Reservation | undefined, after: string): { sql: string; after: string } {
  if (!held) return { sql: '', after };
  const [minor, day, currency, actor] = [held.minor, held.day, held.currency, held.actorId].map((x) => v.add(x));
  // Locked in actor order (the merchant's counter first), as payout_reserve locks them.
  const sql = `, released AS (
  UPDATE daily_reservations d SET minor = d.minor - ${minor}
  FROM (SELECT actor_id FROM daily_reservations
    WHERE merchant_id = $1 AND day = ${day} AND currency = ${currency} AND actor_id IN ('', ${actor})
      AND EXISTS (SELECT 1 FROM ${after})
    ORDER BY actor_id FOR UPDATE) AS locked
  WHERE d.merchant_id = $1 AND d.day = ${day} AND d.currency = ${currency} AND d.actor_id = locked.actor_id
  RETURNING 1
)`;
  return { sql, after: `${after} CROSS JOIN (SELECT count(*) FROM released) AS counters` };
}

/**
 * Appends the entries, keyed by the gateway, to the merchant's audit chain when the write `after`
 * named happened, through audit_append, whose trigger numbers and links each from the head row. A
 * SELECT in a WITH runs only when read: `appendedBy` reads it.
 */
function audited(v: Values, entries: readonly KeyedDraft[], after: string): string {
  if (entries.length === 0) return '';
  const rows = entries.map((d) => ({
    at: d.at,
    actor: d.actor,
    action: d.action,
    reference_id: d.referenceId,
    status: d.status,
    amount: d.amount,
    currency: d.currency,
    detail: d.detail,
    mac: d.mac,
    entry_id: d.entryId,
    key_id: d.keyId,
  }));
  return `, audited AS (SELECT audit_append($1, ${v.add(JSON.stringify(rows))}::json) AS appended FROM ${after})`;
}

/** The column that makes the audited WITH run (its rows are appended by then). */
const appendedBy = (audit: readonly KeyedDraft[]) =>
  audit.length > 0 ? ', (SELECT coalesce(sum(appended), 0) FROM audited)::int AS appended' : '';

/** Adds the record to the change log (its triggers number and notify) when the write `after` named happened. */
function logged(record: string, at: string, after: string): string {
  return `, logged AS (INSERT INTO payout_changes (merchant_id, at, record) SELECT merchant_id, ${at}, ${record} FROM ${after})`;
}

/** Queues the payout's relay job, due at `at`, when the write `after` named happened. */
function relayed(v: Values, job: RelayJob, at: string, after: string): string {
  const insert = enqueueRelayJob(raw(after), raw(at), raw(v.add(JSON.stringify(job))));
  return `, relayed AS (${compile(insert, 'postgres').text})`;
}

/** What a claim answers: whether it inserted, the record already stored, and a refused hold's counters. */
export interface ClaimRow {
  done: number;
  existing: string | null;
  reserved: boolean | null;
  merchant_minor: string | null;
  actor_minor: string | null;
}

/**
 * The claim of a new payout: with a hold, the day's counters locked and checked against the caps
 * first (payout_reserve, postgres.migrations.ts version 10), the row inserted only if the hold was
 * taken; its change-log entry and audit entries with it. The record already stored is read in the
 * same statement (its snapshot: one claimed by a write that committed since answers neither).
 */
export function claimStatement({ record, columns, hold, logged: shown, audit }: ClaimStep): Statement {
  const v = new Values();
  v.add(record.merchantId);
  v.add(record.referenceId);
  const c = columnParams(v, columns, true);
  const createdAt = `${v.add(createdAtOf(record))}::bigint`;
  const reserve = hold
    ? [
        hold.held.day,
        hold.held.currency,
        hold.held.actorId,
        hold.held.minor,
        hold.caps.dailyMinor ?? null,
        hold.caps.userMinor ?? null,
      ]
        .map((value) => v.add(value))
        .join(', ')
    : '';
  const text = `
WITH ${hold ? `reserve AS (SELECT * FROM payout_reserve($1, $2, ${reserve})),` : ''}
inserted AS (
  ${insertPayoutSql(['$1::text', '$2::text'], createdAt, c.placeholders, hold ? 'reserve WHERE reserve.reserved' : undefined)}
  ON CONFLICT (merchant_id, reference_id) DO NOTHING
  RETURNING merchant_id
)${shown ? logged(c.record, c.written_at, 'inserted') : ''}${audited(v, audit, 'inserted')}
SELECT (SELECT count(*) FROM inserted)::int AS done${appendedBy(audit)}, ${
    hold
      ? 'reserve.existing, reserve.reserved, reserve.merchant_minor, reserve.actor_minor FROM reserve'
      : '(SELECT record FROM payouts WHERE merchant_id = $1 AND reference_id = $2) AS existing'
  }`;
  return { name: `claim-${hold ? 'r' : ''}${shown ? 'l' : ''}${audit.length > 0 ? 'a' : ''}`, text, values: v.list };
}

/**
 * The conditional write of a payout row: only at the revision it was read at and, when `at.written`
 * is given (the row as this process last wrote it, not read), only while its record is still exactly
 * that text: a row changed behind the gateway's back without moving its revision is read again. Its
 * reservation release, log entry, relay job and audit entries commit with it.
 */
export function rewriteStatement({
  at,
  columns,
  release: held,
  logged: published,
  relay,
  audit,
}: RewriteStep): Statement {
  const v = new Values();
  v.add(at.merchantId);
  v.add(at.referenceId);
  const c = columnParams(v, columns);
  const revision = `${v.add(at.revision)}${at.written === undefined ? '' : ` AND record = ${v.add(at.written)}`}`;
  const release = released(v, held, 'updated');
  const text = `
WITH updated AS (
  UPDATE payouts SET ${updatePayoutSet(c.placeholders)}
  WHERE merchant_id = $1 AND reference_id = $2 AND revision = ${revision}
  RETURNING merchant_id, reference_id
)${release.sql}${published ? logged(c.record, c.written_at, release.after) : ''}${
    relay ? relayed(v, relay, c.written_at, 'updated') : ''
  }${audited(v, audit, release.after)}
SELECT count(*)::int AS done${appendedBy(audit)} FROM updated`;
  const shape = `${held ? 'r' : ''}${published ? 'l' : ''}${relay ? 'j' : ''}${
    audit.length > 0 ? 'a' : ''
  }${at.written === undefined ? '' : 'w'}`;
  return { name: `update-${shape}`, text, values: v.list };
}

export function eraseStatement({ at, release: held, audit }: EraseStep): Statement {
  const v = new Values();
  v.add(at.merchantId);
  v.add(at.referenceId);
  const revision = v.add(at.revision);
  const release = released(v, held, 'removed');
  const text = `
WITH removed AS (
  DELETE FROM payouts WHERE merchant_id = $1 AND reference_id = $2 AND revision = ${revision} RETURNING merchant_id
)${release.sql}${audited(v, audit, release.after)}
SELECT count(*)::int AS done${appendedBy(audit)} FROM removed`;
  return { name: `remove-${held ? 'r' : ''}${audit.length > 0 ? 'a' : ''}`, text, values: v.list };
}

export function appendStatement(merchantId: string, drafts: readonly KeyedDraft[]): Statement {
  const v = new Values();
  v.add(merchantId);
  const text = `WITH always AS (SELECT 1)${audited(v, drafts, 'always')} SELECT (SELECT appended FROM audited)`;
  return { name: 'append-audit', text, values: v.list };
}
