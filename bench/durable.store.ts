import Database, { Statement } from 'better-sqlite3';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { CreateInput, StubRecord } from './apollo.floor';

/**
 * The durable floor's store: the least a payout gateway must write to make a create durable,
 * audited and exactly-once, and nothing else (issue 46's floor). Five statements per create: the
 * claim row committed before the provider is called; then the provider's answer (the payout row,
 * one change-log row, two audit entries: requested, answered). Each audit entry is chained to its
 * merchant's previous hash with SHA-256 and keyed with an HMAC. Every write asked for in one
 * event-loop turn is committed in one BEGIN IMMEDIATE … COMMIT (WAL, synchronous=NORMAL).
 */
const SCHEMA = `
  CREATE TABLE payouts (
    reference_id TEXT PRIMARY KEY, merchant TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
    account_number TEXT NOT NULL, narration TEXT, status TEXT NOT NULL, identifier TEXT,
    version INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE TABLE change_log (
    id INTEGER PRIMARY KEY, merchant TEXT NOT NULL, reference_id TEXT NOT NULL, version INTEGER NOT NULL,
    status TEXT NOT NULL, at TEXT NOT NULL
  );
  CREATE TABLE audit_log (
    merchant TEXT NOT NULL, sequence INTEGER NOT NULL, at TEXT NOT NULL, action TEXT NOT NULL,
    reference_id TEXT, status TEXT, amount TEXT, currency TEXT, previous_hash TEXT NOT NULL,
    hash TEXT NOT NULL, mac TEXT NOT NULL, PRIMARY KEY (merchant, sequence)
  );
`;

const GENESIS_HASH = '0'.repeat(64);

interface Head {
  sequence: number;
  hash: string;
}

type Write = () => void;

export class DurableStore {
  private readonly db: Database.Database;
  private readonly statements: Record<
    'begin' | 'commit' | 'rollback' | 'claim' | 'answer' | 'change' | 'audit' | 'head',
    Statement
  >;
  /** Each merchant's last audit entry as committed or about to be; read from the file when unknown. */
  private readonly heads = new Map<string, Head>();
  /** Never stored: an entry forged through the file has no MAC that verifies. */
  private readonly chainKey = randomBytes(32);
  private queue: { write: Write; settle: (error?: Error) => void }[] = [];
  private flushQueued = false;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    const sql = (text: string) => this.db.prepare(text);
    this.statements = {
      begin: sql('BEGIN IMMEDIATE'),
      commit: sql('COMMIT'),
      rollback: sql('ROLLBACK'),
      claim: sql(
        `INSERT INTO payouts (reference_id, merchant, amount, currency, account_number, narration, status, version, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'SENDING', 1, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      answer: sql(
        `UPDATE payouts SET status = ?, identifier = ?, version = 2, updated_at = ? WHERE reference_id = ? AND version = 1`,
      ),
      change: sql('INSERT INTO change_log (merchant, reference_id, version, status, at) VALUES (?, ?, ?, ?, ?)'),
      audit: sql(
        `INSERT INTO audit_log (merchant, sequence, at, action, reference_id, status, amount, currency, previous_hash, hash, mac)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      head: sql('SELECT sequence, hash FROM audit_log WHERE merchant = ? ORDER BY sequence DESC LIMIT 1'),
    };
  }

  /**
   * Claims `input.referenceId` for `merchant`: resolves with the time claimed once committed, or
   * undefined when it was already claimed (nothing written then).
   */
  claim(merchant: string, input: CreateInput): Promise<string | undefined> {
    const at = new Date().toISOString();
    let claimed = false;
    return this.write(() => {
      const { referenceId, amount, currency } = input;
      const args = [referenceId, merchant, amount, currency, input.accountNumber, input.narration ?? null, at, at];
      claimed = this.statements.claim.run(...args).changes === 1;
    }).then(() => (claimed ? at : undefined));
  }

  /** Records the provider's answer to a create claimed at `requestedAt`: payout row, change-log row, two audit entries. */
  answered(merchant: string, input: CreateInput, requestedAt: string, record: StubRecord): Promise<void> {
    return this.write(() => {
      const at = new Date().toISOString();
      const status = String(record.status).toUpperCase();
      const { referenceId, amount, currency } = input;
      if (this.statements.answer.run(status, record.identifier, at, referenceId).changes !== 1) return;
      this.statements.change.run(merchant, referenceId, 2, status, at);
      this.audit(merchant, requestedAt, 'CREATE_REQUESTED', referenceId, 'SENDING', amount, currency);
      this.audit(merchant, at, 'PROVIDER_ANSWERED', referenceId, status, amount, currency);
    });
  }

  /** Commits what is queued, then closes the file. */
  close(): void {
    while (this.queue.length > 0) this.flush();
    this.db.close();
  }

  private audit(
    merchant: string,
    at: string,
    action: string,
    referenceId: string,
    status: string,
    amount: string,
    currency: string,
  ): void {
    const previous = this.headOf(merchant);
    const sequence = previous.sequence + 1;
    const content = JSON.stringify([sequence, at, null, action, referenceId, status, amount, currency, null]);
    const hash = createHash('sha256').update(`${previous.hash}\n${content}`).digest('hex');
    const mac = createHmac('sha256', this.chainKey).update(hash).digest('hex');
    this.statements.audit.run(
      merchant,
      sequence,
      at,
      action,
      referenceId,
      status,
      amount,
      currency,
      previous.hash,
      hash,
      mac,
    );
    this.heads.set(merchant, { sequence, hash });
  }

  private headOf(merchant: string): Head {
    const known = this.heads.get(merchant);
    if (known) return known;
    const row = this.statements.head.get(merchant) as Head | undefined;
    return row ?? { sequence: 0, hash: GENESIS_HASH };
  }

  /** Resolves once the transaction holding `write` is committed. */
  private write(write: Write): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (this.flushQueued) return;
      this.flushQueued = true;
      setImmediate(() => {
        this.flushQueued = false;
        this.flush();
      });
    });
  }

  /** One transaction for every write queued: when any throws, none is kept and every caller gets the error. */
  private flush(): void {
    const group = this.queue;
    if (group.length === 0) return;
    this.queue = [];
    let failure: Error | undefined;
    try {
      this.statements.begin.run();
      for (const { write } of group) write();
      this.statements.commit.run();
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      if (this.db.inTransaction) this.statements.rollback.run();
      // The heads moved with writes that are gone: read them again from the file.
      this.heads.clear();
    }
    for (const { settle } of group) settle(failure);
  }
}
