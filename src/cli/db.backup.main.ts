import '../node.supported';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BACKUP_TAKEN_AT, sqliteFacts } from '../database/history.rewinds';
import { readSqlite } from '../database/sqlite.open';
import { CommandError, fileArgument, runDatabaseCommand } from './database.command';

const USAGE = 'usage: npm run db:backup -- <file>   (reads DATABASE_URL; unset: .data/gateway.sqlite)';

/**
 * `npm run db:backup -- <file>`: a consistent copy of the embedded file, taken while the gateway runs
 * (SQLite's online backup: the latest committed writes included). The copy says it is a backup, so a
 * gateway started on it, by db:restore or by hand, knows its history went back (docs/operations.md).
 */
runDatabaseCommand(USAGE, async (target, args) => {
  if (target.engine !== 'sqlite')
    throw new CommandError(
      'db:backup copies the embedded file; back up PostgreSQL with pg_dump or a base backup, and run npm run db:restored after restoring it',
    );
  const file = resolve(fileArgument(args, USAGE));
  if (existsSync(file)) throw new CommandError(`${file} exists already: name a new file`);
  const source = readSqlite(target.path);
  try {
    await source.backup(file);
  } finally {
    source.close();
  }
  const copy = new Database(file);
  try {
    sqliteFacts(copy).setFact(BACKUP_TAKEN_AT, new Date().toISOString());
    // One self-contained file: no -wal or -shm to keep beside it.
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  return `backup of ${target.path} written to ${file}`;
});
