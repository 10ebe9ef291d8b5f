/*
 * The schema the migrations make, declared once: every table every engine has, its columns in
 * order, its primary key and its named indexes. An engine's own tables, triggers and functions
 * are declared with its migrations (sqlite.migrations.ts, postgres.migrations.ts). The migrations
 * test builds the schema on each engine and compares it with this, so a migration that drops or
 * adds something undeclared fails there.
 */

/** The shape of a table as the migrations must build it. */
export interface TableShape {
  name: string;
  columns: readonly string[];
  primaryKey: readonly string[];
  /** Named indexes; the primary key's own index is not listed. */
  indexes: readonly string[];
}

export interface DeclaredTable extends TableShape {
  /**
   * What the gateway's own database role may do with it, where another role owns the schema
   * (PostgreSQL's DATABASE_OWNER_URL): `write` (select, insert, update, delete) or `read` (select;
   * what it adds there goes through a function that checks it). Granted from this declaration
   * (postgres.grants.ts), so a new table says it here and nowhere else.
   */
  gateway: 'write' | 'read';
}

export interface DeclaredTrigger {
  table: string;
  name: string;
}

/** The payouts table's columns, in order; the store's row mapping (payout.row.ts) must cover each. */
export const PAYOUTS_TABLE_COLUMNS = [
  'merchant_id',
  'reference_id',
  'created_at',
  'written_at',
  'status',
  'channel',
  'currency',
  'amount_minor',
  'final',
  'due_at',
  'revision',
  'record',
  'due_kind',
  'leased_until',
] as const;

/** The audit_log table's columns, in order; the embedded file's append (sqlite.heads.ts) gives each. */
export const AUDIT_LOG_COLUMNS = [
  'merchant_id',
  'sequence',
  'at',
  'actor',
  'action',
  'reference_id',
  'status',
  'amount',
  'currency',
  'detail',
  'hash',
  'previous_hash',
  'mac',
  'entry_id',
  'key_id',
] as const;

export const DECLARED_TABLES: readonly DeclaredTable[] = [
  {
    name: 'schema_migrations',
    gateway: 'read',
    columns: ['version', 'name', 'applied_at'],
    primaryKey: ['version'],
    indexes: [],
  },
  {
    name: 'payouts',
    gateway: 'write',
    columns: PAYOUTS_TABLE_COLUMNS,
    primaryKey: ['merchant_id', 'reference_id'],
    indexes: ['payouts_history', 'payouts_due', 'payouts_final', 'payouts_due_kind'],
  },
  {
    name: 'merchant_heads',
    gateway: 'read',
    columns: ['merchant_id', 'change_position', 'audit_sequence', 'audit_hash'],
    primaryKey: ['merchant_id'],
    indexes: [],
  },
  {
    name: 'payout_changes',
    gateway: 'write',
    columns: ['merchant_id', 'position', 'at', 'record'],
    primaryKey: ['merchant_id', 'position'],
    indexes: ['payout_changes_at'],
  },
  {
    name: 'daily_reservations',
    gateway: 'write',
    columns: ['merchant_id', 'day', 'currency', 'actor_id', 'minor'],
    primaryKey: ['merchant_id', 'day', 'currency', 'actor_id'],
    indexes: [],
  },
  {
    name: 'relay_jobs',
    gateway: 'write',
    columns: ['merchant_id', 'reference_id', 'due_at', 'attempts', 'lease', 'job'],
    primaryKey: ['merchant_id', 'reference_id'],
    indexes: ['relay_jobs_due'],
  },
  {
    name: 'provider_budgets',
    gateway: 'write',
    columns: ['key', 'tokens', 'read_tokens', 'counted_at', 'paused_until'],
    primaryKey: ['key'],
    indexes: [],
  },
  { name: 'provider_claims', gateway: 'write', columns: ['key', 'until_at'], primaryKey: ['key'], indexes: [] },
  {
    name: 'audit_log',
    gateway: 'read',
    columns: AUDIT_LOG_COLUMNS,
    primaryKey: ['merchant_id', 'sequence'],
    indexes: ['audit_log_payout', 'audit_log_at'],
  },
  {
    name: 'reconciliation_runs',
    gateway: 'write',
    columns: [
      'id',
      'merchant_id',
      'window_from',
      'window_to',
      'state',
      'started_at',
      'finished_at',
      'lease_until',
      'total',
      'checked',
      'after_created_at',
      'after_reference_id',
      'run',
    ],
    primaryKey: ['id'],
    indexes: ['reconciliation_running', 'reconciliation_by_merchant'],
  },
  {
    name: 'reconciliation_discrepancies',
    gateway: 'write',
    columns: ['run_id', 'reference_id', 'kind', 'gateway_status', 'provider_status', 'resolved'],
    primaryKey: ['run_id', 'reference_id', 'kind'],
    indexes: [],
  },
  { name: 'history_rewinds', gateway: 'read', columns: ['at', 'reason'], primaryKey: [], indexes: [] },
  { name: 'database_facts', gateway: 'read', columns: ['name', 'value'], primaryKey: ['name'], indexes: [] },
  {
    name: 'audit_checkpoints',
    gateway: 'read',
    columns: ['merchant_id', 'sequence', 'hash', 'at', 'signature', 'key_id'],
    primaryKey: ['merchant_id', 'sequence'],
    indexes: [],
  },
  {
    name: 'beneficiaries',
    gateway: 'write',
    columns: ['merchant_id', 'id', 'created_at', 'status', 'channel', 'search_text', 'account_key', 'record'],
    primaryKey: ['merchant_id', 'id'],
    indexes: ['beneficiaries_book', 'beneficiaries_active_account'],
  },
];
