import type { Database } from 'better-sqlite3';
import { GENESIS_HASH, KeyedDraft, linked } from '../disbursements/audit.entry';
import { Disbursement } from '../disbursements/disbursement.model';
import { PayoutColumns } from './payout.row';
import { join, placeholders, raw, shape, Sql, sql } from '../database/sql.dialect';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';
import { AUDIT_LOG_COLUMNS } from '../database/schema.declared';

/** A merchant's head row: where its change log and its audit chain end. */
interface Head {
  changePosition: number;
  auditSequence: number;
  auditHash: string;
}

/** The head rows of each open file as last written, by merchant (see MerchantHeads). */
const FILES = new WeakMap<Database, Map<string, Head>>();

/**
 * The merchants' head rows of one file, kept in memory as this process last wrote them: a write
 * appends its change-log entry and audit entries from the head it holds and writes the head row back
 * once, with no read before. This process is the file's only writer, so what it wrote last is what
 * is there, unless the write that wrote it was rolled back: every failed write forgets them all
 * (`forget`), and the next write of each merchant reads its row again.
 */
export class MerchantHeads {
  private readonly heads: Map<string, Head>;

  private readonly q: SqliteRunner;

  constructor(db: Database) {
    this.q = sqliteRunner(db);
    const known = FILES.get(db) ?? new Map<string, Head>();
    FILES.set(db, known);
    this.heads = known;
  }

  /** The merchant's head for a write under way, to append to and then `close`. */
  open(merchantId: string): HeadWrite {
    const head = this.heads.get(merchantId) ?? this.read(merchantId);
    return new HeadWrite(this.q, merchantId, { ...head }, (next) => this.heads.set(merchantId, next));
  }

  /** After a write that failed: what is in memory may be what it rolled back. */
  forget(): void {
    this.heads.clear();
  }

  private read(merchantId: string): Head {
    const row = this.q.get<{ change_position: number; audit_sequence: number; audit_hash: string }>(
      sql`SELECT change_position, audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = ${merchantId}`,
    );
    return row
      ? { changePosition: row.change_position, auditSequence: row.audit_sequence, auditHash: row.audit_hash }
      : { changePosition: 0, auditSequence: 0, auditHash: GENESIS_HASH };
  }
}

/** The audit append of `count` entries, its statement built once per count. */
const APPENDS = new Map<number, (values: readonly unknown[]) => Sql>();

function appendOf(count: number): (values: readonly unknown[]) => Sql {
  let append = APPENDS.get(count);
  if (!append) {
    const row = sql`(${placeholders(AUDIT_LOG_COLUMNS.length)})`;
    append = shape(sql`INSERT INTO audit_log (${raw(AUDIT_LOG_COLUMNS.join(', '))})
      VALUES ${join(Array.from({ length: count }, () => row))}`);
    APPENDS.set(count, append);
  }
  return append;
}

/** One write's appends to a merchant's change log and audit chain, its head row written once at `close`. */
export class HeadWrite {
  private moved = false;

  constructor(
    private readonly q: SqliteRunner,
    private readonly merchantId: string,
    private readonly head: Head,
    private readonly kept: (head: Head) => void,
  ) {}

  /** Numbers and links entries the gateway keyed after the chain's last, and appends them. */
  audit(drafts: readonly KeyedDraft[]): void {
    if (drafts.length === 0) return;
    const { auditSequence, auditHash } = this.head;
    const previous = auditSequence > 0 ? { sequence: auditSequence, hash: auditHash } : undefined;
    const entries = linked(previous, drafts);
    // One statement for all of a write's entries, each row's values in AUDIT_LOG_COLUMNS' order.
    const values = entries.flatMap((e) => [
      this.merchantId,
      e.sequence,
      e.at,
      e.actor,
      e.action,
      e.referenceId,
      e.status,
      e.amount,
      e.currency,
      e.detail,
      e.hash,
      e.previousHash,
      e.mac,
      e.entryId,
      e.keyId,
    ]);
    this.q.run(appendOf(entries.length)(values));
    const last = entries[entries.length - 1];
    this.head.auditSequence = last.sequence;
    this.head.auditHash = last.hash;
    this.moved = true;
  }

  /** Appends the record to the change log at the next position, with the JSON and time of the row just written. */
  log(record: Disbursement, columns: PayoutColumns): Disbursement {
    this.head.changePosition += 1;
    this.q.run(sql`INSERT INTO payout_changes (merchant_id, position, at, record)
      VALUES (${this.merchantId}, ${this.head.changePosition}, ${columns.written_at}, ${columns.record})`);
    this.moved = true;
    return record;
  }

  /** Writes the head row, if anything moved it. */
  close(): void {
    if (!this.moved) return;
    const { changePosition, auditSequence, auditHash } = this.head;
    this.q.run(sql`INSERT INTO merchant_heads (merchant_id, change_position, audit_sequence, audit_hash)
      VALUES (${this.merchantId}, ${changePosition}, ${auditSequence}, ${auditHash}) ON CONFLICT (merchant_id)
      DO UPDATE SET change_position = excluded.change_position, audit_sequence = excluded.audit_sequence,
      audit_hash = excluded.audit_hash`);
    this.kept({ ...this.head });
  }
}
