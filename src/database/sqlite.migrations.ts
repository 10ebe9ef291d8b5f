import { EngineSchema } from './schema.engine';

/** SQLite serves one process, whose writes are already serial: it only adds the audit tables' guards. */
const sqliteAuditGuards = `
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
`;

const sqliteCheckpointGuards = `
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
  BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only'); END;
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
  BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only'); END;
`;

/** Each open record's `nextCheckAt` becomes its `due`, of the kind the shared step found. */
const sqliteDueRecords = `
UPDATE payouts SET record = json_set(json_remove(record, '$.nextCheckAt'), '$.due',
  json_object('kind', due_kind, 'at', json_extract(record, '$.nextCheckAt')))
  WHERE json_extract(record, '$.nextCheckAt') IS NOT NULL;
`;

export const SQLITE_SCHEMA: EngineSchema = {
  dialect: { text: 'TEXT', bigint: 'INTEGER', real: 'REAL', randomId: 'lower(hex(randomblob(16)))' },
  only: { 2: sqliteAuditGuards, 5: sqliteCheckpointGuards, 8: sqliteDueRecords },
  tables: [],
  triggers: [
    { table: 'audit_log', name: 'audit_log_no_update' },
    { table: 'audit_log', name: 'audit_log_no_delete' },
    { table: 'audit_checkpoints', name: 'audit_checkpoints_no_update' },
    { table: 'audit_checkpoints', name: 'audit_checkpoints_no_delete' },
  ],
  functions: [],
  gatewayExecutes: [],
};
