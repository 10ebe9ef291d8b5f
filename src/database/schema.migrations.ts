import { Migration, SchemaDialect } from './schema.engine';

/*
 * The database's schema, as versioned migrations applied in order at startup (schema.migrate.ts).
 * Each version's tables and indexes are written here once, for every engine, with the engine's type
 * names from its dialect; what only one engine runs is in that engine's file (sqlite.migrations.ts,
 * postgres.migrations.ts), and the schema they make together is declared in schema.declared.ts.
 * A migration is never edited once released: a change is a new version.
 */

/** The payouts, their change log, daily reservations, relay jobs and provider budgets. */
const payoutTables = ({ text, bigint, real }: SchemaDialect) => `
-- One row per payout: the record as JSON text, and the columns the queries need.
CREATE TABLE payouts (
  merchant_id ${text} NOT NULL,
  reference_id ${text} NOT NULL,
  created_at ${bigint} NOT NULL,      -- ms: when first stored, the payout's place in its history
  written_at ${bigint} NOT NULL,      -- ms: the last write, for retention
  status TEXT NOT NULL,
  channel TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount_minor ${bigint} NOT NULL,    -- the amount in cents, summed exactly by statements
  final INTEGER NOT NULL,             -- 1 once SUCCESSFUL, FAILED or CANCELLED
  next_check_at ${bigint},            -- ms: when the rechecker should ask the provider next
  revision ${bigint} NOT NULL,        -- grows with every write: a write lands only on the revision it read
  record TEXT NOT NULL,
  PRIMARY KEY (merchant_id, reference_id)
);
CREATE INDEX payouts_history ON payouts (merchant_id, created_at DESC, reference_id DESC);
CREATE INDEX payouts_due ON payouts (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE INDEX payouts_final ON payouts (written_at) WHERE final = 1;

-- Each merchant's change log (disbursementEvents(after:)): positions from 1, gap-free, in commit order.
CREATE TABLE merchant_heads (
  merchant_id ${text} PRIMARY KEY,
  change_position ${bigint} NOT NULL
);
CREATE TABLE payout_changes (
  merchant_id ${text} NOT NULL,
  position ${bigint} NOT NULL,
  at ${bigint} NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (merchant_id, position)
);
CREATE INDEX payout_changes_at ON payout_changes (at);

-- Minor units held against daily limits, per merchant (actor_id '') and per actor.
CREATE TABLE daily_reservations (
  merchant_id ${text} NOT NULL,
  day TEXT NOT NULL,
  currency TEXT NOT NULL,
  actor_id ${text} NOT NULL,
  minor ${bigint} NOT NULL,
  PRIMARY KEY (merchant_id, day, currency, actor_id)
);

-- Final records to deliver to a client's own callbackUrl.
CREATE TABLE relay_jobs (
  merchant_id ${text} NOT NULL,
  reference_id ${text} NOT NULL,
  due_at ${bigint} NOT NULL,
  attempts INTEGER NOT NULL,
  lease TEXT,
  job TEXT NOT NULL,
  PRIMARY KEY (merchant_id, reference_id)
);
CREATE INDEX relay_jobs_due ON relay_jobs (due_at);

-- Provider budgets (token buckets; NULL tokens: a full bucket) and short claims (a refresh's coalescing).
CREATE TABLE provider_budgets (
  key ${text} PRIMARY KEY,
  tokens ${real},
  read_tokens ${real},
  counted_at ${bigint} NOT NULL,
  paused_until ${bigint} NOT NULL
);
CREATE TABLE provider_claims (
  key ${text} PRIMARY KEY,
  until_at ${bigint} NOT NULL
);
`;

/** The audit trail and reconciliation runs. */
const auditTables = ({ text, bigint }: SchemaDialect) => `
-- Each merchant's chain head: the last entry's sequence and hash.
ALTER TABLE merchant_heads ADD COLUMN audit_sequence ${bigint} NOT NULL DEFAULT 0;
ALTER TABLE merchant_heads ADD COLUMN audit_hash TEXT NOT NULL DEFAULT '${'0'.repeat(64)}';

-- Every decision and event about money, per merchant from 1 without gaps, each hash covering the
-- previous one. Append-only: the database itself refuses UPDATE and DELETE.
CREATE TABLE audit_log (
  merchant_id ${text} NOT NULL,
  sequence ${bigint} NOT NULL,
  at TEXT NOT NULL,
  actor TEXT,
  action TEXT NOT NULL,
  reference_id ${text},
  status TEXT,
  amount TEXT,
  currency TEXT,
  detail TEXT,
  hash TEXT NOT NULL,
  previous_hash TEXT NOT NULL,
  PRIMARY KEY (merchant_id, sequence)
);
CREATE INDEX audit_log_payout ON audit_log (merchant_id, reference_id, sequence);
CREATE INDEX audit_log_at ON audit_log (merchant_id, at);

-- Reconciliation runs: one RUNNING per merchant; progress kept so a restart resumes it.
CREATE TABLE reconciliation_runs (
  id ${text} PRIMARY KEY,
  merchant_id ${text} NOT NULL,
  window_from ${bigint} NOT NULL,
  window_to ${bigint} NOT NULL,
  state TEXT NOT NULL,
  started_at ${bigint} NOT NULL,
  finished_at ${bigint},
  lease_until ${bigint},
  total INTEGER NOT NULL,
  checked INTEGER NOT NULL,
  after_created_at ${bigint},
  after_reference_id ${text},
  run TEXT NOT NULL
);
CREATE UNIQUE INDEX reconciliation_running ON reconciliation_runs (merchant_id) WHERE state = 'RUNNING';
CREATE INDEX reconciliation_by_merchant ON reconciliation_runs (merchant_id, started_at);
CREATE TABLE reconciliation_discrepancies (
  run_id ${text} NOT NULL,
  reference_id ${text} NOT NULL,
  kind TEXT NOT NULL,
  gateway_status TEXT,
  provider_status TEXT,
  resolved INTEGER NOT NULL,
  PRIMARY KEY (run_id, reference_id, kind)
);
`;

/**
 * When the database was found to have gone back in time (a restore, a failover, an older
 * copy of the file), and facts about the database itself (its id; on a copy db:backup made, when).
 */
const rewindTables = ({ randomId }: SchemaDialect) => `
CREATE TABLE history_rewinds (
  at BIGINT NOT NULL,                 -- ms: when the gateway learnt that history went back
  reason TEXT NOT NULL
);
CREATE TABLE database_facts (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO database_facts (name, value) VALUES ('database_id', ${randomId});
`;

/** Each entry's keyed value, and the signed checkpoints of each merchant's chain. */
const keyedAudit = ({ text, bigint }: SchemaDialect) => `
-- hex HMAC-SHA256 of the entry's hash under a key only the gateway holds; NULL for entries written
-- before this version, which a signed checkpoint covers instead.
ALTER TABLE audit_log ADD COLUMN mac TEXT;

-- Signed chain heads (Ed25519 over merchant, sequence, hash, at), append-only like the log.
CREATE TABLE audit_checkpoints (
  merchant_id ${text} NOT NULL,
  sequence ${bigint} NOT NULL,
  hash TEXT NOT NULL,
  at TEXT NOT NULL,
  signature TEXT NOT NULL,
  PRIMARY KEY (merchant_id, sequence)
);
`;

/**
 * What is due for a payout and the lease on it, apart: `due_at` (the column that was `next_check_at`)
 * with `due_kind` says what the due loop does next, `leased_until` which replica holds it meanwhile.
 * Each engine then moves the record's own `nextCheckAt` into its `due` (sqlite.migrations.ts,
 * postgres.migrations.ts).
 */
const dueKinds = ({ text, bigint }: SchemaDialect) => `
ALTER TABLE payouts RENAME COLUMN next_check_at TO due_at;
ALTER TABLE payouts ADD COLUMN due_kind ${text};
ALTER TABLE payouts ADD COLUMN leased_until ${bigint};
UPDATE payouts SET due_kind = CASE status
  WHEN 'AWAITING_APPROVAL' THEN 'APPROVAL_EXPIRY' WHEN 'SCHEDULED' THEN 'SEND' ELSE 'RECHECK' END
  WHERE due_at IS NOT NULL;
`;

/**
 * What is due, by its kind then its time: the metrics count the payouts scheduled, and those the gateway
 * sends again, from a range of this index rather than a scan of every payout with a due time (a
 * backlog of payouts waiting to be checked can be a million rows).
 */
const dueByKind = () => `
CREATE INDEX payouts_due_kind ON payouts (due_kind, due_at) WHERE due_at IS NOT NULL;
`;

/** The merchants' beneficiary books (docs/beneficiaries.md). */
const beneficiaryTables = ({ text, bigint }: SchemaDialect) => `
-- One row per beneficiary: the record as JSON text, and the columns the book's queries need.
CREATE TABLE beneficiaries (
  merchant_id ${text} NOT NULL,
  id ${text} NOT NULL,
  created_at ${bigint} NOT NULL,
  status ${text} NOT NULL,
  channel ${text} NOT NULL,
  search_text TEXT NOT NULL,
  account_key ${text} NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX beneficiaries_book ON beneficiaries (merchant_id, created_at, id);
-- One beneficiary not archived per payee: the store checks first, this refuses whatever slips by.
CREATE UNIQUE INDEX beneficiaries_active_account ON beneficiaries (merchant_id, account_key)
  WHERE status <> 'ARCHIVED';
`;

/** Entries keyed by their content and an id, so the database can number and link them as it appends. */
const contentKeyedAudit = ({ text }: SchemaDialect) => `
-- A random id the gateway gives each entry from this version on; its keyed value (mac) covers the
-- merchant, this id and the content, not the hash. NULL for earlier entries, whose mac covers the hash.
ALTER TABLE audit_log ADD COLUMN entry_id ${text};
`;

/**
 * Which audit key made each entry's keyed value and each checkpoint's signature (audit.keys.ts
 * `auditKeyId`), so AUDIT_SIGNING_KEY can hold several keys. NULL on what was written before: the one
 * key configured then, which a verifier finds by trying the keys it has.
 */
const auditKeyIds = ({ text }: SchemaDialect) => `
ALTER TABLE audit_log ADD COLUMN key_id ${text};
ALTER TABLE audit_checkpoints ADD COLUMN key_id ${text};
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'payouts, change log, reservations, relay jobs, provider budgets', shared: payoutTables },
  { version: 2, name: 'audit trail, reconciliation runs', shared: auditTables },
  { version: 3, name: 'history rewinds, database facts', shared: rewindTables },
  // PostgreSQL only: see postgres.migrations.ts.
  { version: 4, name: 'payouts keep room on each page for their next write', shared: () => '' },
  { version: 5, name: 'keyed audit chain, signed checkpoints', shared: keyedAudit },
  { version: 6, name: 'beneficiary books', shared: beneficiaryTables },
  // PostgreSQL only: the gateway's role adds checkpoints through a function, never by INSERT.
  { version: 7, name: 'checkpoints added only through audit_checkpoint_add', shared: () => '' },
  { version: 8, name: 'what is due for a payout, and its lease, in columns of their own', shared: dueKinds },
  // PostgreSQL only: grants come from the declared schema (postgres.grants.ts), not a function.
  { version: 9, name: "the gateway role's grants from the declared schema", shared: () => '' },
  {
    version: 10,
    name: 'audit entries keyed by content, chained by the database as they are appended',
    shared: contentKeyedAudit,
  },
  { version: 11, name: 'audit key ids on entries and checkpoints', shared: auditKeyIds },
  { version: 12, name: 'what is due, by its kind: the waiting work counted from an index', shared: dueByKind },
];
