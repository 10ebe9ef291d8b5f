import '../node.supported';
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BACKUP_TAKEN_AT, sqliteFacts } from '../database/history.rewinds';
import { migrateSqlite } from '../database/schema.migrate';
import { checkHistory } from '../database/sqlite.mark';
import { DatabaseInUseError, openSqlite } from '../database/sqlite.open';
import { CommandError, fileArgument, runDatabaseCommand } from './database.command';

const USAGE = 'usage: npm run db:restore -- <file>   (the gateway stopped; reads DATABASE_URL)';

/** A file db:restore may put in place: an intact SQLite database that a gateway migrated. */
function readBackup(file: string): Database.Database {
  let backup: Database.Database;
  try {
    backup = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new CommandError(`${file} cannot be read as a backup: ${(error as Error).message}`);
  }
  const check = backup.pragma('quick_check', { simple: true });
  const isGateways = backup.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").get();
  if (check !== 'ok' || !isGateways) {
    backup.close();
    throw new CommandError(`${file} is not an intact backup of the gateway's database`);
  }
  return backup;
}

/**
 * `npm run db:restore -- <file>`, with the gateway stopped: puts the backup in place of the embedded
 * file (through SQLite's backup, under the file's lock, so no gateway can start meanwhile) and records
 * that history went back, so the next start asks the provider before sending any payout it does not know.
 */
runDatabaseCommand(USAGE, async (target, args) => {
  if (target.engine !== 'sqlite')
    throw new CommandError(
      'db:restore puts a copy of the embedded file in place; restore PostgreSQL with its own tools, then run npm run db:restored',
    );
  const file = resolve(fileArgument(args, USAGE));
  const backup = readBackup(file);
  let handle: ReturnType<typeof openSqlite>;
  try {
    handle = openSqlite(target.path);
  } catch (error) {
    backup.close();
    if (error instanceof DatabaseInUseError) throw new CommandError(`${error.message}: stop the gateway first`);
    throw error;
  }
  try {
    await backup.backup(target.path);
    migrateSqlite(handle.db);
    const facts = sqliteFacts(handle.db);
    // A copy made otherwise than by db:backup: the backup file's own time stands for when it was taken.
    if (facts.fact(BACKUP_TAKEN_AT) === undefined) facts.setFact(BACKUP_TAKEN_AT, statSync(file).mtime.toISOString());
    const { rewound } = await checkHistory(handle, target.path, Date.now);
    return `${target.path} restored from ${file}; recorded: ${rewound ?? 'history went back'}`;
  } finally {
    backup.close();
    handle.close();
  }
});
