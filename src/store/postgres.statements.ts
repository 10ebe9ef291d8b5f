import { KeyedDraft } from '../disbursements/audit.entry';
import { Reservation } from '../disbursements/disbursement.model';
import { RelayJob } from '../disbursements/relay.job';
import { enqueueRelayJob } from '../database/relay-jobs.statements';
import { raw, sql, Sql } from '../database/sql.dialect';
import { claimRow, eraseRow, PayoutColumns, rewriteRow } from './payout.row';
import { ClaimStep, EraseStep, RewriteStep } from './payout.steps';

// PostgreSQL's payout steps, each one statement in autocommit, so one round trip: the row (its
// statement the one both engines run, payout.row.ts), its reservation (taken or released), its
// change-log entry, its relay job and its audit entries commit together or not at all (CTEs that run
// only when the write did). Every write takes the merchant's head row last (the chain's and the
// change log's triggers), and the day's reservation counters in actor order before it: a change
// after its payout's row, a reserving claim before the new row it inserts, which no other write
// holds. So none waits on another in a cycle, and the head row's lock is held only until the
// statement's own commit, inside the server.

/**
 * A statement and its label: each text it takes is prepared once per connection, under a name made of
 * the label and the text (sql.dialect.ts preparedName), so its variants need no names of their own.
 */
export interface Statement {
  name: string;
  sql: Sql;
}

const NONE = raw('');

/**
 * Gives a reservation back when the write `after` named happened; answers what later steps read
 * from instead of `after`, so the counters are locked before the merchant's head row.
 */
function released(merchantId: string, held: Reservation | undefined, after: Sql): { sql: Sql; after: Sql } {
  if (!held) return { sql: NONE, after };
  const { minor, day, currency, actorId } = held;
  // Locked in actor order (the merchant's counter first), as payout_reserve locks them.
  const release = sql`, released AS (
  UPDATE daily_reservations d SET minor = d.minor - ${minor}
  FROM (SELECT actor_id FROM daily_reservations
    WHERE merchant_id = ${merchantId} AND day = ${day} AND currency = ${currency} AND actor_id IN ('', ${actorId})
      AND EXISTS (SELECT 1 FROM ${after})
    ORDER BY actor_id FOR UPDATE) AS locked
  WHERE d.merchant_id = ${merchantId} AND d.day = ${day} AND d.currency = ${currency} AND d.actor_id = locked.actor_id
  RETURNING 1
)`;
  return { sql: release, after: sql`${after} CROSS JOIN (SELECT count(*) FROM released) AS counters` };
}

/** Entries keyed by the gateway, as audit_append takes them: a JSON array of rows. */
function auditRows(entries: readonly KeyedDraft[]): string {
  return JSON.stringify(
    entries.map((d) => ({
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
    })),
  );
}

/**
 * Audit entries appended to the merchant's audit chain, through audit_append (whose trigger numbers and
 * links each from the head row), when the write a CTE names happened. A SELECT in a WITH runs only when
 * the statement reads it, so the part that appends and the column that reads it are one value, and
 * only `withAudit` puts them in a statement: a statement with the first and not the second, which would
 * drop its entries on PostgreSQL alone with no error, cannot be built.
 */
export class AuditAppend {
  readonly #cte: Sql;
  readonly #column: Sql;

  private constructor(cte: Sql, column: Sql) {
    this.#cte = cte;
    this.#column = column;
  }

  /** The entries appended when the write `after` names happened; none: nothing to append, nothing read. */
  static of(merchantId: string, entries: readonly KeyedDraft[], after: Sql): AuditAppend {
    if (entries.length === 0) return new AuditAppend(NONE, NONE);
    return new AuditAppend(
      sql`, audited AS (SELECT audit_append(${merchantId}, ${auditRows(entries)}::json) AS appended FROM ${after})`,
      raw(', (SELECT coalesce(sum(appended), 0) FROM audited)::int AS appended'),
    );
  }

  /**
   * `WITH <ctes>` with the audit's part last, then `SELECT <columns>` with the column that makes it run,
   * then `rest` (a FROM): the one way an audited statement is written.
   */
  static withAudit(ctes: Sql, audit: AuditAppend, columns: Sql, rest: Sql = NONE): Sql {
    return sql`WITH ${ctes}${audit.#cte}
SELECT ${columns}${audit.#column}${rest}`;
  }
}

/** Adds the record to the change log (its triggers number and notify) when the write `after` named happened. */
function logged(columns: PayoutColumns, after: Sql): Sql {
  return sql`, logged AS (INSERT INTO payout_changes (merchant_id, at, record)
  SELECT merchant_id, ${columns.written_at}::bigint, ${columns.record}::text FROM ${after})`;
}

/** Queues the payout's relay job, due when the row was written, when the write `after` named happened. */
function relayed(job: RelayJob, columns: PayoutColumns, after: Sql): Sql {
  return sql`, relayed AS (${enqueueRelayJob(after, sql`${columns.written_at}::bigint`, sql`${JSON.stringify(job)}`)})`;
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
  const { merchantId, referenceId } = record;
  const inserted = raw('inserted');
  let reserve = NONE;
  let answer = sql`(SELECT record FROM payouts WHERE merchant_id = ${merchantId} AND reference_id = ${referenceId}) AS existing`;
  let from = NONE;
  if (hold) {
    const { day, currency, actorId, minor } = hold.held;
    const caps = [hold.caps.dailyMinor ?? null, hold.caps.userMinor ?? null];
    reserve = sql`reserve AS (SELECT * FROM payout_reserve(${merchantId}, ${referenceId}, ${day}, ${currency}, ${actorId}, ${minor}, ${caps[0]}, ${caps[1]})),`;
    answer = raw('reserve.existing, reserve.reserved, reserve.merchant_minor, reserve.actor_minor');
    from = raw(' FROM reserve');
  }
  const row = claimRow(record, columns, hold ? raw('reserve WHERE reserve.reserved') : undefined);
  const statement = AuditAppend.withAudit(
    sql`${reserve}
inserted AS (${row} RETURNING merchant_id)${shown ? logged(columns, inserted) : NONE}`,
    AuditAppend.of(merchantId, audit, inserted),
    sql`${answer}, (SELECT count(*) FROM inserted)::int AS done`,
    from,
  );
  return { name: 'claim', sql: statement };
}

/**
 * The conditional write of a payout row (payout.row.ts `rewriteRow`): only at the revision it was
 * read at and, when `at.written` is given (the row as this process last wrote it, not read), only
 * while its record is still exactly that text, so a row changed behind the gateway's back without
 * moving its revision is read again. Its reservation release, log entry, relay job and audit entries
 * commit with it.
 */
export function rewriteStatement(step: RewriteStep): Statement {
  const { at, columns, logged: published, relay, audit } = step;
  const updated = raw('updated');
  const release = released(at.merchantId, step.release, updated);
  const statement = AuditAppend.withAudit(
    sql`updated AS (${rewriteRow(at, columns)} RETURNING merchant_id, reference_id)${release.sql}${
      published ? logged(columns, release.after) : NONE
    }${relay ? relayed(relay, columns, updated) : NONE}`,
    AuditAppend.of(at.merchantId, audit, release.after),
    raw('count(*)::int AS done'),
    raw(' FROM updated'),
  );
  return { name: 'update', sql: statement };
}

export function eraseStatement({ at, release: held, audit }: EraseStep): Statement {
  const release = released(at.merchantId, held, raw('removed'));
  const statement = AuditAppend.withAudit(
    sql`removed AS (${eraseRow(at)} RETURNING merchant_id)${release.sql}`,
    AuditAppend.of(at.merchantId, audit, release.after),
    raw('count(*)::int AS done'),
    raw(' FROM removed'),
  );
  return { name: 'remove', sql: statement };
}

export function appendStatement(merchantId: string, drafts: readonly KeyedDraft[]): Statement {
  const statement = AuditAppend.withAudit(
    raw('always AS (SELECT 1)'),
    AuditAppend.of(merchantId, drafts, raw('always')),
    raw('1 AS one'),
  );
  return { name: 'append-audit', sql: statement };
}
