import { parseArgs } from 'node:util';
import { AuditEntry } from '../disbursements/audit.entry';
import { verifyChain } from '../disbursements/audit.verify';
import { databasePassword, databaseTarget, DatabaseTarget, shownTarget } from '../database/database.target';
import { postgresPool } from '../database/postgres.open';
import { readSqlite } from '../database/sqlite.open';
import { redactSecrets, secretForms } from '../observability/secret.redaction';
import { AuditLogReader, postgresAuditLog, sqliteAuditLog } from '../store/audit-log.reader';

const USAGE = 'usage: npm run audit:verify [-- --merchant ID]   (reads DATABASE_URL; unset: .data/gateway.sqlite)';

/** Entries read per round trip: memory stays constant however long a chain is. */
const BATCH = 1000;

/** Exit codes: the chains verify; one does not; the verifier could not run. */
const INTACT = 0;
const BROKEN = 1;
const CANNOT_RUN = 2;

class UsageError extends Error {}

function open(target: DatabaseTarget): AuditLogReader {
  if (target.engine === 'sqlite') return sqliteAuditLog(readSqlite(target.path));
  return postgresAuditLog(postgresPool(target.url, { maxConnections: 1 }));
}

async function* chain(reader: AuditLogReader, merchantId: string): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const page = await reader.entries(merchantId, after, BATCH);
    yield* page;
    if (page.length < BATCH) return;
    after = page[page.length - 1].sequence;
  }
}

async function* merchantsOf(reader: AuditLogReader, only: string | undefined): AsyncGenerator<string> {
  if (only !== undefined) {
    yield only;
    return;
  }
  for (let id = await reader.merchantAfter(undefined); id !== undefined; id = await reader.merchantAfter(id)) yield id;
}

/** Verifies every merchant's chain (or one), one after another; the exit code says how it went. */
async function verify(reader: AuditLogReader, only: string | undefined): Promise<number> {
  let total = 0;
  let merchants = 0;
  for await (const merchantId of merchantsOf(reader, only)) {
    // The head first: entries appended while the chain is read only make it longer.
    const head = await reader.head(merchantId);
    const result = await verifyChain(chain(reader, merchantId), head);
    if ('why' in result) {
      console.error(`merchant ${merchantId}: the entry at sequence ${result.sequence} does not verify: ${result.why}`);
      return BROKEN;
    }
    console.log(`merchant ${merchantId}: ${result.count} entries verified`);
    total += result.count;
    merchants += 1;
  }
  console.log(`${total} entries verified, ${merchants} merchant${merchants === 1 ? '' : 's'}: every chain is intact`);
  return INTACT;
}

/**
 * `npm run audit:verify`: recomputes the audit chains of DATABASE_URL (parsed as the gateway
 * parses it), streaming, with nothing written, so it can run beside a live gateway. The database
 * is named as the gateway's log names it: never with its password.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { merchant: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(USAGE);
    return INTACT;
  }
  if (values.merchant === '') throw new UsageError(`--merchant needs an id. ${USAGE}`);
  const target = databaseTarget(process.env.DATABASE_URL);
  if (!target) throw new UsageError('Invalid setting DATABASE_URL: must be postgres://... or sqlite:<path>');
  const password = databasePassword(target);
  let reader: AuditLogReader | undefined;
  try {
    reader = open(target);
    console.log(`verifying the audit chains in the ${shownTarget(target)}`);
    return await verify(reader, values.merchant);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = redactSecrets(message, secretForms([password ?? '']));
    throw new UsageError(`Cannot read the database of DATABASE_URL (${shownTarget(target)}): ${reason}`);
  } finally {
    await reader?.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A usage or database problem is one line; anything else is a bug, shown whole.
    console.error(error instanceof UsageError || error instanceof TypeError ? error.message : error);
    process.exitCode = CANNOT_RUN;
  },
);
