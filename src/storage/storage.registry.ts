import { DatabaseTarget } from '../database/database.target';
import { openPostgresStorage } from './postgres.storage';
import { openSqliteStorage } from './sqlite.storage';
import { Storage, StorageNeeds } from './storage.port';

type EngineName = DatabaseTarget['engine'];
type TargetOf<E extends EngineName> = Extract<DatabaseTarget, { engine: E }>;

/**
 * Every engine the gateway runs on, by the name DATABASE_URL's scheme gives it (database.target.ts): a third
 * engine is its storage opener here, beside its dialect, driver and migrations.
 */
const ENGINES: { [E in EngineName]: (target: TargetOf<E>, needs: StorageNeeds) => Promise<Storage> } = {
  sqlite: openSqliteStorage,
  postgres: openPostgresStorage,
};

/** The storage ports over `target`, its schema migrated. */
export function openStorage<E extends EngineName>(target: TargetOf<E>, needs: StorageNeeds): Promise<Storage> {
  const open: (target: TargetOf<E>, needs: StorageNeeds) => Promise<Storage> = ENGINES[target.engine];
  return open(target, needs);
}
