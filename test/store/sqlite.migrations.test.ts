import Database from 'better-sqlite3';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { migrateSqlite, SchemaTooNewError } from '../../src/database/schema.migrate';
import { openSqlite } from '../../src/database/sqlite.open';
import { SQLITE } from '../support/sqlite.engine';
import { ALL, FROM_THE_FUTURE } from './migrations.fixtures';

SQLITE.describe('schema migrations of the embedded file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payout-gateway-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies every version to a new file once', () => {
    const db = new Database(join(dir, 'gateway.sqlite'));
    try {
      expect(migrateSqlite(db)).toEqual(ALL);
      expect(migrateSqlite(db)).toEqual([]);
      expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(ALL);
    } finally {
      db.close();
    }
  });

  it('will not open a file whose schema is newer, and lets it go again', () => {
    const path = join(dir, 'gateway.sqlite');
    const first = openSqlite(path);
    first.db.exec(FROM_THE_FUTURE);
    first.close();
    expect(() => openSqlite(path)).toThrow(SchemaTooNewError);
    // The refusal released the file: a second try meets the schema again, not a lock.
    expect(() => openSqlite(path)).toThrow(SchemaTooNewError);
  });
});
