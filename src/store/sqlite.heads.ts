import type { Database } from 'better-sqlite3';
import { GENESIS_HASH, KeyedDraft, linked } from '../disbursements/audit.entry';
import { Disbursement } from '../disbursements/disbursement.model';
import { PayoutColumns } from './payout.row';
import { join, placeholders, raw, shape, Sql, sql } from '../database/sql.dialect';
import { GroupCommit } from '../database/sqlite.group-commit';
import { SqliteRunner, sqliteRunner } from '../database/sqlite.prepared';
import { AUDIT_LOG_COLUMNS } from '../database/schema.declared';

/** A merchant's head row: where its change log and its audit chain end. */
interface Head {
  changePosition: number;
  auditSequence: number;
  auditHash: string;
}

/** What a file's writers share about its heads: the heads as last written, and which the next COMMIT must write. */
interface FileHeads {
  heads: Map<string, Head>;
  /** Merchants whose head moved in the group under way: their rows are written once, before its COMMIT. */
  moved: Set<string>;
}

/** The head state of each open file, shared by every writer of it in this process. */
const FILES = new WeakMap<Database, FileHeads>();

/**
 * The merchants' head rows of one file, kept in memory as this process last wrote them: a write
 * appends its change-log entry and audit entries from the head it holds, with no read before, and
 * each merchant's head row is written once per group commit, just before its COMMIT, however many of
 * the group's writes moved it. This process is the file's only writer, so what it holds is what is
 * there once the group commits. Rollbacks: a write that fails alone (its savepoint rolled back) puts
 * back the heads it moved (`begin`/`undo`), so the group's later writes append where the file will
 * be; a group that fails whole forgets them all (`forget`), and each merchant's next write reads its
 * row again.
 */
export class MerchantHeads {
  private readonly heads: Map<string, Head>;
  private readonly moved: Set<string>;
  /** The heads the write under way moved, as they were before it: what `undo` puts back. */
  private before = new Map<string, Head | undefined>();

  private readonly q: SqliteRunner;

  constructor(db: Database, writes: Pick<GroupCommit, 'beforeEachCommit'>) {
    this.q = sqliteRunner(db);
    let file = FILES.get(db);
    if (!file) {
      file = { heads: new Map(), moved: new Set() };
      FILES.set(db, file);
      const shared = file;
      writes.beforeEachCommit(() => writeMoved(this.q, shared));
    }
    this.heads = file.heads;
    this.moved = file.moved;
  }

  /** The merchant's head for a write under way, to append to and then `close`. */
  open(merchantId: string): HeadWrite {
    const head = this.heads.get(merchantId) ?? this.read(merchantId);
    return new HeadWrite(this.q, merchantId, { ...head }, (next) => {
      if (!this.before.has(merchantId)) this.before.set(merchantId, this.heads.get(merchantId));
      this.heads.set(merchantId, next);
      this.moved.add(merchantId);
    });
  }

  /** A write starts: nothing of it to put back yet. */
  begin(): void {
    this.before = new Map();
  }

  /** The write failed alone (its savepoint rolled back): the heads it moved are as they were. */
  undo(): void {
    for (const [merchantId, head] of this.before)
      if (head === undefined) this.heads.delete(merchantId);
      else this.heads.set(merchantId, head);
    this.before = new Map();
  }

  /** After a group that failed whole: what is in memory may be what it rolled back. */
  forget(): void {
    this.heads.clear();
    this.moved.clear();
    this.before = new Map();
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

/** Writes the head row of each merchant the group moved, once, as it stands after the group's writes. */
function writeMoved(q: SqliteRunner, file: FileHeads): void {
  for (const merchantId of file.moved) {
    const head = file.heads.get(merchantId);
    if (!head) continue;
    const { changePosition, auditSequence, auditHash } = head;
    q.run(sql`INSERT INTO merchant_heads (merchant_id, change_position, audit_sequence, audit_hash)
      VALUES (${merchantId}, ${changePosition}, ${auditSequence}, ${auditHash}) ON CONFLICT (merchant_id)
      DO UPDATE SET change_position = excluded.change_position, audit_sequence = excluded.audit_sequence,
      audit_hash = excluded.audit_hash`);
  }
  file.moved.clear();
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

/** One write's appends to a merchant's change log and audit chain; `close` keeps where they end for the group's head row. */
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

  /** Keeps the head where this write left it, if anything moved it: written with its group's COMMIT. */
  close(): void {
    if (this.moved) this.kept({ ...this.head });
  }
}
