import '../node.supported';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MerchantRegistry } from '../auth/merchant.registry';
import { ConfigError, loadConfig } from '../config';
import { shownTarget } from '../database/database.target';
import { AuditEntry } from '../disbursements/audit.entry';
import { AuditCheckpoint, auditPublicKey, AuditVerifyingKeys } from '../disbursements/audit.keys';
import { payoutAgainstTrail, verifyChain } from '../disbursements/audit.verify';
import { AuditLogReader } from '../store/audit-log.reader';
import { BROKEN, gatewayAuditKeys, INTACT, runCli, UsageError, withAuditLog } from './audit.cli';

const USAGE =
  'usage: npm run audit:verify [-- --merchant ID] [--checkpoints FILE] [--public-key FILE]   (reads DATABASE_URL; unset: .data/gateway.sqlite)';

/** Entries and payouts read per round trip: memory stays constant however long a chain is. */
const BATCH = 1000;

async function* chain(reader: AuditLogReader, merchantId: string): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const page = await reader.entries(merchantId, after, BATCH);
    yield* page;
    if (page.length < BATCH) return;
    after = page[page.length - 1].sequence;
  }
}

/** Every merchant the database, the configuration or the kept checkpoints know, in id order. */
async function* merchantsOf(reader: AuditLogReader, known: readonly string[]): AsyncGenerator<string> {
  const others = [...new Set(known)].sort();
  let fromDatabase = await reader.merchantAfter(undefined);
  while (fromDatabase !== undefined || others.length > 0) {
    const next =
      fromDatabase !== undefined && (others.length === 0 || fromDatabase <= others[0]) ? fromDatabase : others[0];
    if (others[0] === next) others.shift();
    if (fromDatabase === next) fromDatabase = await reader.merchantAfter(next);
    yield next;
  }
}

/** The first payout of the merchant that disagrees with the trail, and why. */
async function payoutBreak(reader: AuditLogReader, merchantId: string): Promise<string | undefined> {
  let after = '';
  for (;;) {
    const page = await reader.payouts(merchantId, after, BATCH);
    for (const { payout, last } of page) {
      const why = payoutAgainstTrail(payout, last);
      if (why) return `payout ${payout.referenceId} does not match its audit trail: ${why}`;
    }
    if (page.length < BATCH) return undefined;
    after = page[page.length - 1].payout.referenceId;
  }
}

interface Run {
  reader: AuditLogReader;
  keys: AuditVerifyingKeys;
  merchants: readonly string[];
  kept: ReadonlyMap<string, AuditCheckpoint[]>;
}

/** Verifies each merchant's chain and payouts, one after another; every broken merchant is named. */
async function verify({ reader, keys, merchants, kept }: Run): Promise<number> {
  let total = 0;
  let count = 0;
  let broken = 0;
  for await (const merchantId of merchantsOf(reader, merchants)) {
    count += 1;
    // Head and checkpoints first: entries appended while the chain is read only make it longer.
    const head = await reader.head(merchantId);
    const checkpoints = [...(await reader.checkpoints(merchantId)), ...(kept.get(merchantId) ?? [])];
    const result = await verifyChain(chain(reader, merchantId), { head, checkpoints, keys });
    if ('why' in result) {
      console.error(`merchant ${merchantId}: the entry at sequence ${result.sequence} does not verify: ${result.why}`);
      broken += 1;
      continue;
    }
    const payout = await payoutBreak(reader, merchantId);
    if (payout) {
      console.error(`merchant ${merchantId}: ${payout}`);
      broken += 1;
      continue;
    }
    console.log(`merchant ${merchantId}: ${result.count} entries verified`);
    total += result.count;
  }
  const scope = keys.chainKey
    ? 'every entry keyed'
    : 'with the public key alone: signatures and links checked, keyed values not (entries after the last checkpoint rest on their links)';
  if (broken > 0) {
    console.error(`${broken} of ${count} merchant${count === 1 ? '' : 's'} did not verify (${scope})`);
    return BROKEN;
  }
  console.log(
    `${total} entries verified, ${count} merchant${count === 1 ? '' : 's'}: every chain is intact, its payouts agree (${scope})`,
  );
  return INTACT;
}

/** What `audit:checkpoint` wrote: one checkpoint per line, by merchant. */
function keptCheckpoints(file: string): Map<string, AuditCheckpoint[]> {
  const byMerchant = new Map<string, AuditCheckpoint[]>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read --checkpoints ${file}: ${(error as Error).message}`);
  }
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const c = parseCheckpoint(line);
    if (!c) throw new UsageError(`--checkpoints ${file}: line ${index + 1} is not a checkpoint audit:checkpoint wrote`);
    byMerchant.set(c.merchantId, [...(byMerchant.get(c.merchantId) ?? []), c]);
  }
  return byMerchant;
}

function parseCheckpoint(line: string): AuditCheckpoint | undefined {
  try {
    const c = JSON.parse(line) as Partial<Record<keyof AuditCheckpoint, unknown>>;
    const texts = [c.merchantId, c.hash, c.at, c.signature];
    if (!texts.every((t) => typeof t === 'string') || typeof c.sequence !== 'number') return undefined;
    return {
      merchantId: c.merchantId as string,
      sequence: c.sequence,
      hash: c.hash as string,
      at: c.at as string,
      signature: c.signature as string,
    };
  } catch {
    return undefined;
  }
}

function publicKeyFrom(file: string): AuditVerifyingKeys {
  try {
    return auditPublicKey(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--public-key ${file}: ${(error as Error).message}`);
  }
}

/**
 * `npm run audit:verify`: checks the audit chains of DATABASE_URL (parsed as the gateway parses it)
 * against their keyed values, their signed checkpoints (and those kept in `--checkpoints`), their
 * head rows, and the payouts they record; streaming, with nothing written, so it can run beside a
 * live gateway. The database is named as the gateway's log names it: never with its password.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      merchant: { type: 'string' },
      checkpoints: { type: 'string' },
      'public-key': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return INTACT;
  }
  if (values.merchant === '') throw new UsageError(`--merchant needs an id. ${USAGE}`);
  const config = loadConfig(process.env);
  const publicKeyFile = values['public-key'];
  const keys = publicKeyFile === undefined ? await gatewayAuditKeys(config) : publicKeyFrom(publicKeyFile);
  if (!keys)
    throw new UsageError(
      `No key to verify with: set AUDIT_SIGNING_KEY as the gateway has it, or give --public-key FILE. ${USAGE}`,
    );
  const kept =
    values.checkpoints === undefined ? new Map<string, AuditCheckpoint[]>() : keptCheckpoints(values.checkpoints);
  const only = values.merchant;
  const merchants = only === undefined ? [...MerchantRegistry.fromConfig(config, true).ids(), ...kept.keys()] : [only];
  return withAuditLog(config, async (reader) => {
    console.log(`verifying the audit chains in the ${shownTarget(config.database)}`);
    const scoped = only === undefined ? reader : { ...reader, merchantAfter: async () => undefined };
    return verify({ reader: scoped, keys, merchants, kept });
  });
}

runCli(main, (error) => error instanceof ConfigError || error instanceof TypeError);
