import { readDevAuditKey } from '../audit/audit.dev-key';
import { Config } from '../config';
import { DatabaseTarget, onEngine, shownTarget } from '../database/database.target';
import { postgresPool } from '../database/postgres.open';
import { readSqlite } from '../database/sqlite.open';
import { AuditKeyRing, auditSigningKeys } from '../disbursements/audit.keys';
import { redactSecrets, secretForms } from '../observability/secret.redaction';
import { AuditLogReader, postgresAuditLog, sqliteAuditLog } from '../store/audit-log.reader';

/** A usage or setup problem: one line, exit 2. */
export class UsageError extends Error {}

/**
 * Exit codes of the audit commands: done (the chains verify); one does not; it could not run;
 * nothing failed, but some was made under a key not given, so not all could be checked.
 */
export const INTACT = 0;
export const BROKEN = 1;
export const CANNOT_RUN = 2;
export const INCOMPLETE = 3;

/** Opens DATABASE_URL to read, with nothing written and no lock: it runs beside a live gateway. */
function open(target: DatabaseTarget): AuditLogReader {
  return onEngine(target, {
    sqlite: ({ path }) => sqliteAuditLog(readSqlite(path)),
    postgres: ({ url }) => postgresAuditLog(postgresPool(url, { maxConnections: 1 })),
  });
}

/**
 * Runs `use` on the database of the configuration, named as the gateway's log names it; a failure
 * to read it is one line, never with its password.
 */
export async function withAuditLog<T>(config: Config, use: (reader: AuditLogReader) => Promise<T>): Promise<T> {
  const target = config.database;
  let reader: AuditLogReader | undefined;
  try {
    reader = open(target);
    return await use(reader);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = redactSecrets(message, secretForms(config.secrets));
    throw new UsageError(`Cannot read the database of DATABASE_URL (${shownTarget(target)}): ${reason}`);
  } finally {
    await reader?.close();
  }
}

/** The gateway's signing keys: AUDIT_SIGNING_KEY (all of them), else the development key file; undefined when neither is there. */
export async function gatewayAuditKeys(config: Config): Promise<AuditKeyRing | undefined> {
  const pem = config.audit.signingKey ?? (await readDevAuditKey());
  return pem === undefined ? undefined : auditSigningKeys(pem);
}

/** Sets the exit code from `main`: a usage or setup problem is one line, anything else a bug shown whole. */
export function runCli(main: () => Promise<number>, oneLine: (error: unknown) => boolean): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof UsageError || oneLine(error) ? (error as Error).message : error);
      process.exitCode = CANNOT_RUN;
    },
  );
}
