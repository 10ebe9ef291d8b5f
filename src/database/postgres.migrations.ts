import { postgresAuditKeyIds } from './postgres.audit-key-ids';
import { EngineSchema } from './schema.engine';

/*
 * What only PostgreSQL runs: the triggers and functions that make its single statements atomic
 * across replicas, the gateway role's grants, and storage settings.
 */

/** PostgreSQL's clock in ms: replicas with drifting clocks share one budget. */
export const POSTGRES_NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

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
  now_ms BIGINT := ${POSTGRES_NOW_MS};
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

/**
 * The gateway's role no longer inserts into audit_checkpoints: a row it could insert, anyone holding
 * its password could forge. It adds checkpoints through audit_checkpoint_add, which keeps only those
 * of an entry the trail holds (so a made-up head cannot be planted), and whose signature
 * `audit:verify` checks. The grant function revokes the INSERT earlier versions gave.
 */
const checkpointsThroughFunction = `
CREATE FUNCTION audit_checkpoint_add(p_checkpoints JSON) RETURNS void LANGUAGE sql
  SECURITY DEFINER SET search_path = public AS $$
  INSERT INTO audit_checkpoints (merchant_id, sequence, hash, at, signature)
  SELECT c.merchant_id, c.sequence, c.hash, c.at, c.signature
  FROM json_to_recordset(p_checkpoints) AS c(merchant_id text, sequence bigint, hash text, at text, signature text)
  WHERE EXISTS (SELECT 1 FROM audit_log l
    WHERE l.merchant_id = c.merchant_id AND l.sequence = c.sequence AND l.hash = c.hash)
  ON CONFLICT (merchant_id, sequence) DO NOTHING;
$$;
REVOKE ALL ON FUNCTION audit_checkpoint_add(JSON) FROM PUBLIC;

CREATE OR REPLACE FUNCTION grant_gateway_role(p_role TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', p_role);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON payouts, payout_changes, daily_reservations, relay_jobs,
    provider_budgets, provider_claims, client_quotas, reconciliation_runs, reconciliation_discrepancies,
    beneficiaries TO %I', p_role);
  EXECUTE format('GRANT SELECT ON audit_log, merchant_heads, audit_checkpoints, schema_migrations, history_rewinds,
    database_facts TO %I', p_role);
  EXECUTE format('REVOKE INSERT ON audit_checkpoints FROM %I', p_role);
  EXECUTE format('GRANT EXECUTE ON FUNCTION audit_append(TEXT, JSON), audit_checkpoint_add(JSON),
    provider_budget_take(TEXT, DOUBLE PRECISION, BOOLEAN) TO %I', p_role);
END $$;
REVOKE ALL ON FUNCTION grant_gateway_role(TEXT) FROM PUBLIC;
`;

/**
 * Version 10: an audited write is one statement in autocommit. The gateway keys each entry's content
 * (audit.entry.ts `contentMac`), and `audit_chain()` numbers and links the entry from its merchant's
 * head row as it is inserted: the row's lock is held from there to the statement's commit, inside
 * the server, never across a round trip. An entry that comes numbered (a replica not yet upgraded)
 * is checked as version 5 checked it. `payout_reserve` takes a daily reservation in the same statement
 * as the claim it holds for.
 */
const postgresChainedOnAppend = `
CREATE OR REPLACE FUNCTION audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  previous TEXT;
  last_sequence BIGINT;
BEGIN
  INSERT INTO merchant_heads (merchant_id, change_position) VALUES (NEW.merchant_id, 0)
    ON CONFLICT (merchant_id) DO NOTHING;
  SELECT audit_sequence, audit_hash INTO last_sequence, previous
    FROM merchant_heads WHERE merchant_id = NEW.merchant_id FOR UPDATE;
  IF NEW.sequence IS NULL THEN
    NEW.sequence := last_sequence + 1;
    NEW.previous_hash := previous;
    NEW.hash := encode(sha256(convert_to(previous || E'\\n' || '[' || ${CANONICAL} || ']', 'UTF8')), 'hex');
  ELSIF NEW.sequence IS DISTINCT FROM last_sequence + 1 OR NEW.previous_hash IS DISTINCT FROM previous THEN
    RAISE EXCEPTION 'audit entry % of merchant % does not follow its head (%)', NEW.sequence, NEW.merchant_id,
      last_sequence;
  ELSIF NEW.hash IS DISTINCT FROM
    encode(sha256(convert_to(previous || E'\\n' || '[' || ${CANONICAL} || ']', 'UTF8')), 'hex') THEN
    RAISE EXCEPTION 'audit entry % of merchant %: its hash is not its content''s', NEW.sequence, NEW.merchant_id;
  END IF;
  UPDATE merchant_heads SET audit_sequence = NEW.sequence, audit_hash = NEW.hash WHERE merchant_id = NEW.merchant_id;
  RETURN NEW;
END $$;

-- Entries keyed by the gateway, in order; unnumbered ones are numbered and linked by audit_chain().
CREATE OR REPLACE FUNCTION audit_append(p_merchant TEXT, p_entries JSON) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = public AS $$
DECLARE
  appended INTEGER;
BEGIN
  INSERT INTO audit_log (merchant_id, sequence, at, actor, action, reference_id, status, amount, currency, detail, hash,
    previous_hash, mac, entry_id)
  SELECT p_merchant, a.sequence, a.at, a.actor, a.action, a.reference_id, a.status, a.amount, a.currency, a.detail,
    a.hash, a.previous_hash, a.mac, a.entry_id
  FROM ROWS FROM (json_to_recordset(p_entries) AS (sequence bigint, at text, actor text, action text,
    reference_id text, status text, amount text, currency text, detail text, hash text, previous_hash text,
    mac text, entry_id text)) WITH ORDINALITY AS a(sequence, at, actor, action, reference_id, status, amount, currency,
    detail, hash, previous_hash, mac, entry_id, n)
  ORDER BY a.n;
  GET DIAGNOSTICS appended = ROW_COUNT;
  RETURN appended;
END $$;

-- A payout's daily reservation, in the statement that claims the payout: the day's two counters are
-- locked (the merchant's first, as every reservation locks them), then the claim is looked for with
-- a fresh snapshot, so a claim of the same payout that held the lock before is seen. The hold is
-- taken only if it fits under both caps (NULL: no cap); the counters are answered either way, for the
-- refusal (daily-limit.refusal.ts decides it alike).
CREATE FUNCTION payout_reserve(p_merchant TEXT, p_reference TEXT, p_day TEXT, p_currency TEXT, p_actor TEXT,
  p_minor BIGINT, p_merchant_cap BIGINT, p_actor_cap BIGINT,
  OUT existing TEXT, OUT merchant_minor BIGINT, OUT actor_minor BIGINT, OUT reserved BOOLEAN) LANGUAGE plpgsql AS $$
BEGIN
  reserved := false;
  INSERT INTO daily_reservations (merchant_id, day, currency, actor_id, minor)
    VALUES (p_merchant, p_day, p_currency, '', 0), (p_merchant, p_day, p_currency, p_actor, 0)
    ON CONFLICT (merchant_id, day, currency, actor_id) DO NOTHING;
  SELECT minor INTO merchant_minor FROM daily_reservations
    WHERE merchant_id = p_merchant AND day = p_day AND currency = p_currency AND actor_id = '' FOR UPDATE;
  SELECT minor INTO actor_minor FROM daily_reservations
    WHERE merchant_id = p_merchant AND day = p_day AND currency = p_currency AND actor_id = p_actor FOR UPDATE;
  SELECT record INTO existing FROM payouts WHERE merchant_id = p_merchant AND reference_id = p_reference;
  IF existing IS NOT NULL OR merchant_minor + p_minor > p_merchant_cap OR actor_minor + p_minor > p_actor_cap THEN
    RETURN;
  END IF;
  UPDATE daily_reservations SET minor = minor + p_minor
    WHERE merchant_id = p_merchant AND day = p_day AND currency = p_currency AND actor_id IN ('', p_actor);
  reserved := true;
END $$;
REVOKE ALL ON FUNCTION payout_reserve(TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, BIGINT, BIGINT) FROM PUBLIC;

`;

/**
 * SQLite rewrites a row in place. PostgreSQL leaves each write's old row version until a page
 * prunes, which it does only once its free space is under (100 - fillfactor)%: at 100, a page
 * with 10% free but less than a row neither prunes nor takes the next version, so a payout
 * written a thousand times in a burst grew the table by 1.6 MB. At 75 a page prunes before it
 * has less than a row's room (rows stay under 2 KB: TOAST compresses beyond).
 */
const payoutsFillfactor = 'ALTER TABLE payouts SET (fillfactor = 75);';

/** Each open record's `nextCheckAt` becomes its `due`, of the kind the shared step found. */
const postgresDueRecords = `
UPDATE payouts SET record = ((record::jsonb - 'nextCheckAt')
  || jsonb_build_object('due', jsonb_build_object('kind', due_kind, 'at', record::jsonb -> 'nextCheckAt')))::text
  WHERE record::jsonb -> 'nextCheckAt' IS NOT NULL;
`;

/*
 * Versions 5 to 7 granted the gateway's role through grant_gateway_role, a function each copied
 * whole to add a table; version 9 drops it: grants now come from the declared schema
 * (postgres.grants.ts).
 */

export const POSTGRES_SCHEMA: EngineSchema = {
  dialect: {
    text: 'TEXT COLLATE "C"',
    bigint: 'BIGINT',
    real: 'DOUBLE PRECISION',
    randomId: 'md5(random()::text || clock_timestamp()::text)',
  },
  only: {
    1: postgresOnly,
    2: postgresAuditGuards,
    4: payoutsFillfactor,
    5: postgresKeyedChain,
    6: grantWithBeneficiaries,
    7: checkpointsThroughFunction,
    8: postgresDueRecords,
    9: 'DROP FUNCTION grant_gateway_role(TEXT);',
    10: postgresChainedOnAppend,
    11: postgresAuditKeyIds,
  },
  tables: [
    { name: 'client_quotas', gateway: 'write', columns: ['key', 'points', 'expire'], primaryKey: ['key'], indexes: [] },
  ],
  triggers: [
    { table: 'payout_changes', name: 'payout_changes_position' },
    { table: 'payout_changes', name: 'payout_changes_notify' },
    { table: 'audit_log', name: 'audit_log_chain' },
    { table: 'audit_log', name: 'audit_log_no_change' },
    { table: 'audit_log', name: 'audit_log_no_truncate' },
    { table: 'audit_checkpoints', name: 'audit_checkpoints_no_change' },
    { table: 'audit_checkpoints', name: 'audit_checkpoints_no_truncate' },
  ],
  functions: [
    'payout_change_position',
    'payout_change_notify',
    'provider_budget_take',
    'audit_chain',
    'audit_log_refuse',
    'audit_append',
    'audit_refuse',
    'audit_checkpoint_add',
    'payout_reserve',
  ],
  gatewayExecutes: ['audit_append', 'audit_checkpoint_add', 'provider_budget_take', 'payout_reserve'],
};
