/**
 * The database's schema, as versioned migrations applied in order at startup (schema.migrate.ts).
 * A migration is never edited once released: a change is a new version. Each carries the same
 * tables for both engines; PostgreSQL also gets the triggers and functions that make its single
 * statements atomic across replicas (SQLite serves one process, whose writes are already serial).
 */
export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

/** Both engines: `${text}` for the text of keys and ids, compared byte by byte. */
const payoutTables = (text: string, bigint: string, real: string) => `
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
  next_check_at ${bigint},            -- ms: when the reconciler should ask the provider next
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

/** PostgreSQL's clock in ms: replicas with drifting clocks share one budget. */
const NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

const postgresOnly = `
-- A change's position comes from its merchant's head row, whose lock holds until commit: positions
-- are gap-free and a later one never commits before an earlier one, whichever replica wrote them.
CREATE FUNCTION payout_change_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO merchant_heads AS h (merchant_id, change_position) VALUES (NEW.merchant_id, 1)
    ON CONFLICT (merchant_id) DO UPDATE SET change_position = h.change_position + 1
    RETURNING change_position INTO NEW.position;
  RETURN NEW;
END $$;
CREATE TRIGGER payout_changes_position BEFORE INSERT ON payout_changes
  FOR EACH ROW EXECUTE FUNCTION payout_change_position();

-- Every replica hears each change at commit: the merchant, the position and (when it fits in a
-- notification) the record itself.
CREATE FUNCTION payout_change_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('payout_changes', '{"m":' || to_json(NEW.merchant_id)::text || ',"p":' || NEW.position ||
    CASE WHEN octet_length(NEW.record) <= 7000 THEN ',"r":' || NEW.record ELSE '' END || '}');
  RETURN NULL;
END $$;
CREATE TRIGGER payout_changes_notify AFTER INSERT ON payout_changes
  FOR EACH ROW EXECUTE FUNCTION payout_change_notify();

-- One token from the shared bucket (and, for a read, from the reads' half), in one call.
CREATE FUNCTION provider_budget_take(p_key TEXT, p_per_minute DOUBLE PRECISION, p_read BOOLEAN,
  OUT taken BOOLEAN, OUT wait_ms BIGINT, OUT paused BOOLEAN) LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := ${NOW_MS};
  b provider_budgets%ROWTYPE;
  half DOUBLE PRECISION := p_per_minute / 2;
  elapsed DOUBLE PRECISION;
  all_left DOUBLE PRECISION;
  reads_left DOUBLE PRECISION;
BEGIN
  taken := false; wait_ms := 0; paused := false;
  INSERT INTO provider_budgets (key, counted_at, paused_until) VALUES (p_key, now_ms, 0) ON CONFLICT (key) DO NOTHING;
  SELECT * INTO b FROM provider_budgets WHERE key = p_key FOR UPDATE;
  IF b.paused_until > now_ms THEN wait_ms := b.paused_until - now_ms; paused := true; RETURN; END IF;
  IF p_per_minute <= 0 THEN taken := true; RETURN; END IF;
  elapsed := greatest(0, now_ms - b.counted_at);
  all_left := least(p_per_minute, coalesce(b.tokens, p_per_minute) + elapsed * p_per_minute / 60000);
  reads_left := least(half, coalesce(b.read_tokens, half) + elapsed * half / 60000);
  IF all_left < 1 THEN wait_ms := ceil((1 - all_left) * 60000 / p_per_minute); END IF;
  IF p_read AND reads_left < 1 THEN wait_ms := greatest(wait_ms, ceil((1 - reads_left) * 60000 / half)::bigint); END IF;
  IF wait_ms > 0 THEN RETURN; END IF;
  UPDATE provider_budgets SET tokens = all_left - 1,
    read_tokens = CASE WHEN p_read THEN reads_left - 1 ELSE reads_left END, counted_at = now_ms WHERE key = p_key;
  taken := true;
END $$;

-- Client quotas across replicas (rate-limiter-flexible's table layout).
CREATE TABLE client_quotas (
  key VARCHAR(255) PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire BIGINT
);
`;

/** Both engines: the audit trail and reconciliation runs. */
const auditTables = (text: string, bigint: string) => `
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

const sqliteAuditGuards = `
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
`;

/** The entry's canonical content as audit.entry.ts writes it: a JSON array of its fields. */
const json = (column: string) => `coalesce(to_json(${column})::text, 'null')`;
const CANONICAL = [
  `NEW.sequence::text`,
  ...['at', 'actor', 'action', 'reference_id', 'status', 'amount', 'currency', 'detail'].map((c) => json(`NEW.${c}`)),
].join(" || ',' || ");

const postgresAuditGuards = `
-- The chain is made here, from the merchant's head row: its lock holds until commit, so entries of
-- one merchant are numbered and linked in commit order whichever replica writes them.
CREATE FUNCTION audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  previous TEXT;
  last_sequence BIGINT;
BEGIN
  INSERT INTO merchant_heads (merchant_id, change_position) VALUES (NEW.merchant_id, 0)
    ON CONFLICT (merchant_id) DO NOTHING;
  SELECT audit_sequence, audit_hash INTO last_sequence, previous
    FROM merchant_heads WHERE merchant_id = NEW.merchant_id FOR UPDATE;
  NEW.sequence := last_sequence + 1;
  NEW.previous_hash := previous;
  NEW.hash := encode(sha256(convert_to(previous || E'\\n' || '[' || ${CANONICAL} || ']', 'UTF8')), 'hex');
  UPDATE merchant_heads SET audit_sequence = NEW.sequence, audit_hash = NEW.hash WHERE merchant_id = NEW.merchant_id;
  RETURN NEW;
END $$;
CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_chain();

CREATE FUNCTION audit_log_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse();
`;

/**
 * Both engines: when the database was found to have gone back in time (a restore, a failover, an older
 * copy of the file), and facts about the database itself (its id; on a copy db:backup made, when).
 */
const rewindTables = (randomId: string) => `
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

/** Both engines: each entry's keyed value, and the signed checkpoints of each merchant's chain. */
const keyedAudit = (text: string, bigint: string) => `
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

const sqliteCheckpointGuards = `
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
  BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only'); END;
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
  BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only'); END;
`;

const postgresKeyedChain = `
-- The gateway now numbers, links and keys each entry (it holds the key, under the merchant's
-- advisory lock); the database only checks that the entry follows the head, that its hash is its
-- content's, and moves the head.
CREATE OR REPLACE FUNCTION audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  previous TEXT;
  last_sequence BIGINT;
BEGIN
  INSERT INTO merchant_heads (merchant_id, change_position) VALUES (NEW.merchant_id, 0)
    ON CONFLICT (merchant_id) DO NOTHING;
  SELECT audit_sequence, audit_hash INTO last_sequence, previous
    FROM merchant_heads WHERE merchant_id = NEW.merchant_id FOR UPDATE;
  IF NEW.sequence IS DISTINCT FROM last_sequence + 1 OR NEW.previous_hash IS DISTINCT FROM previous THEN
    RAISE EXCEPTION 'audit entry % of merchant % does not follow its head (%)', NEW.sequence, NEW.merchant_id,
      last_sequence;
  END IF;
  IF NEW.hash IS DISTINCT FROM
    encode(sha256(convert_to(previous || E'\\n' || '[' || ${CANONICAL} || ']', 'UTF8')), 'hex') THEN
    RAISE EXCEPTION 'audit entry % of merchant %: its hash is not its content''s', NEW.sequence, NEW.merchant_id;
  END IF;
  UPDATE merchant_heads SET audit_sequence = NEW.sequence, audit_hash = NEW.hash WHERE merchant_id = NEW.merchant_id;
  RETURN NEW;
END $$;

-- The one way the gateway's role writes the trail: entries the gateway chained, checked by the
-- trigger above. It runs as the schema's owner; the gateway's role may not insert into audit_log.
CREATE FUNCTION audit_append(p_merchant TEXT, p_entries JSON) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = public AS $$
DECLARE
  appended INTEGER;
BEGIN
  INSERT INTO audit_log (merchant_id, sequence, at, actor, action, reference_id, status, amount, currency, detail, hash,
    previous_hash, mac)
  SELECT p_merchant, a.sequence, a.at, a.actor, a.action, a.reference_id, a.status, a.amount, a.currency, a.detail,
    a.hash, a.previous_hash, a.mac
  FROM ROWS FROM (json_to_recordset(p_entries) AS (sequence bigint, at text, actor text, action text,
    reference_id text, status text, amount text, currency text, detail text, hash text, previous_hash text,
    mac text)) WITH ORDINALITY AS a(sequence, at, actor, action, reference_id, status, amount, currency, detail,
    hash, previous_hash, mac, n)
  ORDER BY a.n;
  GET DIAGNOSTICS appended = ROW_COUNT;
  RETURN appended;
END $$;
REVOKE ALL ON FUNCTION audit_append(TEXT, JSON) FROM PUBLIC;

-- A change's position is taken from merchant_heads, which only the owner writes.
ALTER FUNCTION payout_change_position() SECURITY DEFINER SET search_path = public;

-- What the gateway's role (DATABASE_URL, when DATABASE_OWNER_URL names another) may do, granted at
-- every start by the owner: read and write the payouts' tables; read the trail, its heads and
-- checkpoints; add checkpoints (signed: a forged one fails verification); append entries only
-- through audit_append. Not owning a table, it can neither alter, disable nor drop its triggers.
-- A migration that adds a table replaces this function.
CREATE FUNCTION grant_gateway_role(p_role TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', p_role);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON payouts, payout_changes, daily_reservations, relay_jobs,
    provider_budgets, provider_claims, client_quotas, reconciliation_runs, reconciliation_discrepancies TO %I', p_role);
  EXECUTE format('GRANT SELECT ON audit_log, merchant_heads, audit_checkpoints, schema_migrations, history_rewinds,
    database_facts TO %I', p_role);
  EXECUTE format('GRANT INSERT ON audit_checkpoints TO %I', p_role);
  EXECUTE format('GRANT EXECUTE ON FUNCTION audit_append(TEXT, JSON), provider_budget_take(TEXT, DOUBLE PRECISION,
    BOOLEAN) TO %I', p_role);
END $$;
REVOKE ALL ON FUNCTION grant_gateway_role(TEXT) FROM PUBLIC;

CREATE FUNCTION audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
END $$;
CREATE TRIGGER audit_checkpoints_no_change BEFORE UPDATE OR DELETE ON audit_checkpoints
  FOR EACH ROW EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse();
`;

/** Both engines: the merchants' beneficiary books (docs/beneficiaries.md). */
const beneficiaryTables = (text: string, bigint: string) => `
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

/** grant_gateway_role as version 5 made it, with the beneficiary book added to what the gateway's role writes. */
const grantWithBeneficiaries = `
CREATE OR REPLACE FUNCTION grant_gateway_role(p_role TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', p_role);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON payouts, payout_changes, daily_reservations, relay_jobs,
    provider_budgets, provider_claims, client_quotas, reconciliation_runs, reconciliation_discrepancies,
    beneficiaries TO %I', p_role);
  EXECUTE format('GRANT SELECT ON audit_log, merchant_heads, audit_checkpoints, schema_migrations, history_rewinds,
    database_facts TO %I', p_role);
  EXECUTE format('GRANT INSERT ON audit_checkpoints TO %I', p_role);
  EXECUTE format('GRANT EXECUTE ON FUNCTION audit_append(TEXT, JSON), provider_budget_take(TEXT, DOUBLE PRECISION,
    BOOLEAN) TO %I', p_role);
END $$;
REVOKE ALL ON FUNCTION grant_gateway_role(TEXT) FROM PUBLIC;
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'payouts, change log, reservations, relay jobs, provider budgets',
    sqlite: payoutTables('TEXT', 'INTEGER', 'REAL'),
    postgres: payoutTables('TEXT COLLATE "C"', 'BIGINT', 'DOUBLE PRECISION') + postgresOnly,
  },
  {
    version: 2,
    name: 'audit trail, reconciliation runs',
    sqlite: auditTables('TEXT', 'INTEGER') + sqliteAuditGuards,
    postgres: auditTables('TEXT COLLATE "C"', 'BIGINT') + postgresAuditGuards,
  },
  {
    version: 3,
    name: 'history rewinds, database facts',
    sqlite: rewindTables('lower(hex(randomblob(16)))'),
    postgres: rewindTables('md5(random()::text || clock_timestamp()::text)'),
  },
  {
    version: 4,
    name: 'payouts keep room on each page for their next write',
    // SQLite rewrites a row in place. PostgreSQL leaves each write's old row version until a page
    // prunes, which it does only once its free space is under (100 - fillfactor)%: at 100, a page
    // with 10% free but less than a row neither prunes nor takes the next version, so a payout
    // written a thousand times in a burst grew the table by 1.6 MB. At 75 a page prunes before it
    // has less than a row's room (rows stay under 2 KB: TOAST compresses beyond).
    sqlite: '-- PostgreSQL only',
    postgres: 'ALTER TABLE payouts SET (fillfactor = 75);',
  },
  {
    version: 5,
    name: 'keyed audit chain, signed checkpoints',
    sqlite: keyedAudit('TEXT', 'INTEGER') + sqliteCheckpointGuards,
    postgres: keyedAudit('TEXT COLLATE "C"', 'BIGINT') + postgresKeyedChain,
  },
  {
    version: 6,
    name: 'beneficiary books',
    sqlite: beneficiaryTables('TEXT', 'INTEGER'),
    postgres: beneficiaryTables('TEXT COLLATE "C"', 'BIGINT') + grantWithBeneficiaries,
  },
];

export { NOW_MS as POSTGRES_NOW_MS };
