import '../node.supported';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MerchantRegistry } from '../auth/merchant.registry';
import { ConfigError, loadConfig } from '../config';
import { shownTarget } from '../database/database.target';
import { AuditEntry } from '../disbursements/audit.entry';
import {
  AuditCheckpoint,
  AuditKeyRing,
  auditPublicKeys,
  AuditVerifyingKeys,
  joinedRing,
} from '../disbursements/audit.keys';
import { lastKept } from '../disbursements/audit.kept';
import { httpUrl } from '../config.settings';
import { describeUnchecked } from '../disbursements/audit.unchecked';
import { chainBreaks, payoutAgainstTrail } from '../disbursements/audit.verify';
import { readCheckpointFile } from '../audit/audit.checkpoint-file';
import { readWitness } from '../audit/audit.witness';
import { AuditLogReader } from '../store/audit-log.reader';
import { BROKEN, gatewayAuditKeys, INCOMPLETE, INTACT, runCli, UsageError, withAuditLog } from './audit.cli';

const USAGE =
  'usage: npm run audit:verify [-- --merchant ID] [--checkpoints FILE] [--witness URL] [--public-key FILE ...]   (reads DATABASE_URL; unset: .data/gateway.sqlite)';

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

/** Every payout of the merchant that disagrees with the trail, and why. */
async function* payoutBreaks(reader: AuditLogReader, merchantId: string): AsyncGenerator<string> {
  for (let after = ''; ;) {
    const page = await reader.payouts(merchantId, after, BATCH);
    for (const { payout, last } of page) {
      const why = payoutAgainstTrail(payout, last);
      if (why) yield `payout ${payout.referenceId} does not match its audit trail: ${why}`;
    }
    if (page.length < BATCH) break;
    after = page[page.length - 1].payout.referenceId;
  }
  for (let after = ''; ;) {
    const page = await reader.rowless(merchantId, after, BATCH);
    for (const gone of page)
      yield `payout ${gone.referenceId} is gone from payouts, but its audit trail says it exists (${gone.status} at sequence ${gone.sequence}) and no RECORD_REMOVED entry records its removal`;
    if (page.length < BATCH) return;
    after = page[page.length - 1].referenceId;
  }
}

interface Run {
  reader: AuditLogReader;
  keys: AuditKeyRing<AuditVerifyingKeys>;
  merchants: readonly string[];
  /** Checkpoints kept outside the database (the gateway's file, `--checkpoints`, the witness), by merchant. */
  kept: ReadonlyMap<string, AuditCheckpoint[]>;
}

/** What no checkpoint kept outside the database covers: the tail an insider could have cut with no trace. */
function unchecked(count: number, kept: readonly AuditCheckpoint[], keys: readonly AuditVerifyingKeys[]): string {
  const reached = lastKept(keys, kept)?.sequence ?? 0;
  if (count <= reached) return '';
  const tail = reached + 1 === count ? `entry ${count}` : `entries ${reached + 1} to ${count}`;
  return `; ${tail} after the last checkpoint kept outside the database (${reached === 0 ? 'none' : `sequence ${reached}`}) rest on the database alone: a tail cut there would not show`;
}

/**
 * Verifies each merchant's chain and payouts, one after another; every break of every merchant is
 * named, and so is whatever a key not given made (never called intact).
 */
async function verify({ reader, keys, merchants, kept }: Run): Promise<number> {
  let total = 0;
  let count = 0;
  let broken = 0;
  let incomplete = 0;
  for await (const merchantId of merchantsOf(reader, merchants)) {
    count += 1;
    // Head and checkpoints first: entries appended while the chain is read only make it longer.
    const head = await reader.head(merchantId);
    const outside = kept.get(merchantId) ?? [];
    const checkpoints = [...(await reader.checkpoints(merchantId)), ...outside];
    const result = await chainBreaks(chain(reader, merchantId), { merchantId, head, checkpoints, keys });
    let breaks = 0;
    for (const { sequence, why } of result.breaks) {
      console.error(`merchant ${merchantId}: the entry at sequence ${sequence} does not verify: ${why}`);
      breaks += 1;
    }
    for await (const why of payoutBreaks(reader, merchantId)) {
      console.error(`merchant ${merchantId}: ${why}`);
      breaks += 1;
    }
    const what = result.unchecked.map(describeUnchecked).join('; ');
    if (what) console.error(`merchant ${merchantId}: not checked, no key given for it: ${what}`);
    if (breaks > 0) {
      broken += 1;
      continue;
    }
    if (what) {
      incomplete += 1;
      console.error(
        `merchant ${merchantId}: nothing else of its ${result.count} entries failed, but it is not verified whole`,
      );
      continue;
    }
    console.log(`merchant ${merchantId}: ${result.count} entries verified${unchecked(result.count, outside, keys)}`);
    total += result.count;
  }
  const given = `key${keys.length === 1 ? '' : 's'} ${keys.map((k) => k.keyId).join(', ')}`;
  const scope = keys.some((k) => k.chainKey)
    ? 'keyed values checked under the keys given'
    : 'with the public key alone: signatures and links checked, keyed values not (entries after the last checkpoint rest on their links)';
  if (broken > 0) {
    console.error(`${broken} of ${count} merchant${count === 1 ? '' : 's'} did not verify (${given}; ${scope})`);
    return BROKEN;
  }
  if (incomplete > 0) {
    console.error(
      `${incomplete} of ${count} merchant${count === 1 ? '' : 's'} could not be verified whole with ${given}: give the keys named above too (with every key the gateway ever had, what names another key was not made by it) (${scope})`,
    );
    return INCOMPLETE;
  }
  console.log(
    `${total} entries verified, ${count} merchant${count === 1 ? '' : 's'}: every chain is intact, its payouts agree (${given}; ${scope})`,
  );
  return INTACT;
}

/** Where the checkpoints kept outside the database are read from, and which setting or option named it. */
interface KeptSources {
  file: string;
  extra?: string;
  witness?: { url: string; token?: string; source: 'AUDIT_WITNESS_URL' | '--witness' };
}

/** The checkpoints kept outside the database: the gateway's file, what `--checkpoints` names, and the witness's copies. */
async function keptCheckpoints({ file, extra, witness }: KeptSources): Promise<Map<string, AuditCheckpoint[]>> {
  const byMerchant = new Map<string, AuditCheckpoint[]>();
  const add = (read: Map<string, AuditCheckpoint[]>) => {
    for (const [merchantId, list] of read) byMerchant.set(merchantId, [...(byMerchant.get(merchantId) ?? []), ...list]);
  };
  for (const [source, path] of [
    ['AUDIT_CHECKPOINT_FILE', file],
    ['--checkpoints', extra],
  ] as const) {
    if (path === undefined) continue;
    let read: Map<string, AuditCheckpoint[]> | undefined;
    try {
      read = await readCheckpointFile(path);
    } catch (error) {
      throw new UsageError(`Cannot read ${source} ${path}: ${(error as Error).message}`);
    }
    if (read === undefined) {
      if (source === '--checkpoints') throw new UsageError(`Cannot read --checkpoints ${path}: no such file`);
      console.log(
        `no checkpoint file at ${path} (AUDIT_CHECKPOINT_FILE): only the database's own checkpoints are checked, so a tail cut after them would not show`,
      );
      continue;
    }
    console.log(`checking against the checkpoints kept in ${path} (${source})`);
    add(read);
  }
  if (witness) {
    // Its origin only: a path or query may carry a credential.
    const shown = new URL(witness.url).origin;
    try {
      add(await readWitness(witness.url, witness.token));
    } catch (error) {
      throw new UsageError(`Cannot read the witness at ${shown} (${witness.source}): ${(error as Error).message}`);
    }
    console.log(`checking against the checkpoints kept by the witness at ${shown} (${witness.source})`);
  }
  return byMerchant;
}

/**
 * Whether AUDIT_WITNESS_TOKEN may go to the witness read: the configured one, or one at its origin.
 * A `--witness` elsewhere (a typo, a test witness) is read without it; with no AUDIT_WITNESS_URL
 * set, the token has no other home and goes to the witness named.
 */
const tokenFor = (read: string, configured: string | undefined): boolean =>
  configured === undefined || new URL(read).origin === new URL(configured).origin;

/** The public keys of every `--public-key` file (each may hold several, one PEM after another). */
function publicKeysFrom(files: readonly string[]): AuditKeyRing<AuditVerifyingKeys> {
  const rings = files.map((file) => {
    try {
      return auditPublicKeys(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UsageError(`--public-key ${file}: ${(error as Error).message}`);
    }
  });
  try {
    return joinedRing(rings);
  } catch (error) {
    throw new UsageError(`--public-key: ${(error as Error).message}`);
  }
}

/**
 * `npm run audit:verify`: checks the audit chains of DATABASE_URL (parsed as the gateway parses it)
 * against their keyed values, their signed checkpoints (and those kept in AUDIT_CHECKPOINT_FILE,
 * `--checkpoints` and by the witness, AUDIT_WITNESS_URL or `--witness`), their head rows, and the
 * payouts they record; streaming, with nothing written, so it can run beside a live gateway. The
 * database is named as the gateway's log names it: never with its password.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      merchant: { type: 'string' },
      checkpoints: { type: 'string' },
      witness: { type: 'string' },
      'public-key': { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return INTACT;
  }
  if (values.merchant === '') throw new UsageError(`--merchant needs an id. ${USAGE}`);
  const config = loadConfig(process.env);
  const publicKeyFiles = values['public-key'];
  const keys = publicKeyFiles === undefined ? await gatewayAuditKeys(config) : publicKeysFrom(publicKeyFiles);
  if (!keys)
    throw new UsageError(
      `No key to verify with: set AUDIT_SIGNING_KEY as the gateway has it, or give --public-key FILE. ${USAGE}`,
    );
  const witnessUrl = values.witness ?? config.audit.witnessUrl;
  if (values.witness !== undefined && !httpUrl.safeParse(values.witness).success)
    throw new UsageError(`--witness needs an http(s) address. ${USAGE}`);
  const kept = await keptCheckpoints({
    file: config.audit.checkpointFile,
    extra: values.checkpoints,
    witness:
      witnessUrl === undefined
        ? undefined
        : {
            url: witnessUrl,
            token: tokenFor(witnessUrl, config.audit.witnessUrl) ? config.audit.witnessToken : undefined,
            source: values.witness === undefined ? 'AUDIT_WITNESS_URL' : '--witness',
          },
  });
  const only = values.merchant;
  const merchants = only === undefined ? [...MerchantRegistry.fromConfig(config, true).ids(), ...kept.keys()] : [only];
  return withAuditLog(config, async (reader) => {
    console.log(`verifying the audit chains in the ${shownTarget(config.database)}`);
    const scoped = only === undefined ? reader : { ...reader, merchantAfter: async () => undefined };
    return verify({ reader: scoped, keys, merchants, kept });
  });
}

runCli(main, (error) => error instanceof ConfigError || error instanceof TypeError);
