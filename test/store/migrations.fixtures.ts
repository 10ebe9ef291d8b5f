import { MIGRATIONS } from '../../src/database/schema.migrations';

/** The newest schema version this build knows, and every version in order. */
export const KNOWN = MIGRATIONS.at(-1)!.version;
export const ALL = MIGRATIONS.map((m) => m.version);

/** Marks a database as migrated by a newer gateway than this one. */
export const FROM_THE_FUTURE = `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${KNOWN + 1}, 'a newer gateway', 0)`;
