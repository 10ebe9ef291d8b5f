import { AuditEntry } from '../disbursements/audit.entry';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import { shownOnInsert } from '../disbursements/disbursement.record';
import { RelayJob } from '../disbursements/relay.job';
import { enqueueRelayJob } from '../database/relay-jobs.statements';
import {
  columnValues,
  createdAtOf,
  insertPayoutSql,
  payoutColumns,
  updatePayoutSet,
  WRITTEN_COLUMNS,
} from './payout.row';

// PostgreSQL's writes, each one statement: the row, its reservation release, its change-log entry,
// its relay job and its audit entries commit together or not at all (CTEs that run only when the
// write did).

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

/** The written columns' placeholders after the keys ($1, $2), in WRITTEN_COLUMNS order, and the two the change log reuses. */
function columnParams(v: Values, record: Disbursement, writtenAt: number) {
  const placeholders = columnValues(payoutColumns(record, writtenAt)).map((value) => v.add(value));
  const of = (name: (typeof WRITTEN_COLUMNS)[number]) => placeholders[WRITTEN_COLUMNS.indexOf(name)];
  return { placeholders, written_at: of('written_at'), record: of('record') };
}

/** Gives a reservation back when the write `after` named happened. */
function released(v: Values, held: Reservation, after: string): string {
  return `, released AS (
  UPDATE daily_reservations SET minor = minor - ${v.add(held.minor)}
  WHERE merchant_id = $1 AND day = ${v.add(held.day)} AND currency = ${v.add(held.currency)}
    AND actor_id IN ('', ${v.add(held.actorId)}) AND EXISTS (SELECT 1 FROM ${after})
)`;
}

/**
 * Appends the entries, numbered, linked and keyed by the store, to the merchant's audit chain when the
 * write `after` named happened, through audit_append (its trigger checks they follow the head and
 * moves it). A SELECT in a WITH runs only when read: `appendedBy` reads it.
 */
function audited(v: Values, entries: readonly AuditEntry[], after: string): string {
  const rows = entries.map((d) => ({
    sequence: d.sequence,
    at: d.at,
    actor: d.actor,
    action: d.action,
    reference_id: d.referenceId,
    status: d.status,
    amount: d.amount,
    currency: d.currency,
    detail: d.detail,
    hash: d.hash,
    previous_hash: d.previousHash,
    mac: d.mac,
    key_id: d.keyId,
  }));
  return `, audited AS (SELECT audit_append($1, ${v.add(JSON.stringify(rows))}::json) AS appended FROM ${after})`;
}

/** The column that makes the audited WITH run (its rows are appended by then). */
const appendedBy = (audit: readonly AuditEntry[]) =>
  audit.length > 0 ? ', (SELECT coalesce(sum(appended), 0) FROM audited)::int AS appended' : '';

/** Adds the record to the change log (its triggers number and notify) when the write `after` named happened. */
function logged(record: string, at: string, after: string): string {
  return `, logged AS (INSERT INTO payout_changes (merchant_id, at, record) SELECT merchant_id, ${at}, ${record} FROM ${after})`;
}

/** Queues the payout's relay job, due at `at`, when the write `after` named happened. */
function relayed(v: Values, job: RelayJob, at: string, after: string): string {
  return `, relayed AS (${enqueueRelayJob(after, at, v.add(JSON.stringify(job)))})`;
}

export function insertStatement(record: Disbursement, writtenAt: number, audit: readonly AuditEntry[]): Statement {
  const v = new Values();
  v.add(record.merchantId);
  v.add(record.referenceId);
  const c = columnParams(v, record, writtenAt);
  const createdAt = v.add(createdAtOf(record));
  const shown = shownOnInsert(record);
  const text = `
WITH inserted AS (
  ${insertPayoutSql(['$1', '$2'], createdAt, c.placeholders)}
  ON CONFLICT (merchant_id, reference_id) DO NOTHING
  RETURNING merchant_id
)${shown ? logged(c.record, c.written_at, 'inserted') : ''}${audit.length > 0 ? audited(v, audit, 'inserted') : ''}
SELECT count(*)::int AS done${appendedBy(audit)} FROM inserted`;
  return { name: `insert-${shown ? 'l' : ''}${audit.length > 0 ? 'a' : ''}`, text, values: v.list };
}

/** The write of a record read at `revision`, with its reservation release, log entry, relay job and audit entries. */
export function updateStatement(
  keys: { merchantId: string; referenceId: string; revision: string },
  record: Disbursement,
  writtenAt: number,
  extra: { release?: Reservation; published: boolean; relay?: RelayJob; audit: readonly AuditEntry[] },
): Statement {
  const v = new Values();
  v.add(keys.merchantId);
  v.add(keys.referenceId);
  const c = columnParams(v, record, writtenAt);
  const revision = v.add(keys.revision);
  const text = `
WITH updated AS (
  UPDATE payouts SET ${updatePayoutSet(c.placeholders)}
  WHERE merchant_id = $1 AND reference_id = $2 AND revision = ${revision}
  RETURNING merchant_id, reference_id
)${extra.release ? released(v, extra.release, 'updated') : ''}${
    extra.published ? logged(c.record, c.written_at, 'updated') : ''
  }${extra.relay ? relayed(v, extra.relay, c.written_at, 'updated') : ''}${
    extra.audit.length > 0 ? audited(v, extra.audit, 'updated') : ''
  }
SELECT count(*)::int AS done${appendedBy(extra.audit)} FROM updated`;
  const shape = `${extra.release ? 'r' : ''}${extra.published ? 'l' : ''}${extra.relay ? 'j' : ''}${
    extra.audit.length > 0 ? 'a' : ''
  }`;
  return { name: `update-${shape}`, text, values: v.list };
}

export function removeStatement(
  keys: { merchantId: string; referenceId: string; revision: string },
  extra: { release?: Reservation; audit: readonly AuditEntry[] },
): Statement {
  const v = new Values();
  v.add(keys.merchantId);
  v.add(keys.referenceId);
  const revision = v.add(keys.revision);
  const text = `
WITH removed AS (
  DELETE FROM payouts WHERE merchant_id = $1 AND reference_id = $2 AND revision = ${revision} RETURNING merchant_id
)${extra.release ? released(v, extra.release, 'removed') : ''}${
    extra.audit.length > 0 ? audited(v, extra.audit, 'removed') : ''
  }
SELECT count(*)::int AS done${appendedBy(extra.audit)} FROM removed`;
  return { name: `remove-${extra.release ? 'r' : ''}${extra.audit.length > 0 ? 'a' : ''}`, text, values: v.list };
}

export function appendStatement(merchantId: string, drafts: readonly AuditEntry[]): Statement {
  const v = new Values();
  v.add(merchantId);
  const text = `WITH always AS (SELECT 1)${audited(v, drafts, 'always')} SELECT (SELECT appended FROM audited)`;
  return { name: 'append-audit', text, values: v.list };
}
