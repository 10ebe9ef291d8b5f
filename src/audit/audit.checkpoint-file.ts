import { createReadStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { AuditCheckpoint } from '../disbursements/audit.keys';

/*
 * Checkpoints kept outside the database (AUDIT_CHECKPOINT_FILE): one JSON object a line,
 * `{"merchantId","sequence","hash","at","signature","keyId"}`, as `audit:checkpoint` writes them.
 * The gateway only appends; `audit:verify` reads it by default. A reader takes the fields it knows
 * and leaves any others, so the line can grow without breaking older readers; a line without
 * `keyId` (written before key ids were recorded) names no key.
 */

/** One line of the file, as written. */
export function checkpointLine(c: AuditCheckpoint): string {
  const { merchantId, sequence, hash, at, signature, keyId } = c;
  return `${JSON.stringify({ merchantId, sequence, hash, at, signature, keyId })}\n`;
}

/** Appends `checkpoints` and waits until the disk has them (the file made, readable by its owner only, on first use). */
export async function appendCheckpoints(file: string, checkpoints: readonly AuditCheckpoint[]): Promise<void> {
  if (checkpoints.length === 0) return;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.appendFile(checkpoints.map(checkpointLine).join(''));
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** A line as a checkpoint, or undefined when it is not one. */
export function parseCheckpoint(line: string): AuditCheckpoint | undefined {
  try {
    const c = JSON.parse(line) as Partial<Record<keyof AuditCheckpoint, unknown>>;
    const texts = [c.merchantId, c.hash, c.at, c.signature];
    if (!texts.every((t) => typeof t === 'string') || typeof c.sequence !== 'number') return undefined;
    if (c.keyId !== undefined && c.keyId !== null && typeof c.keyId !== 'string') return undefined;
    return {
      merchantId: c.merchantId as string,
      sequence: c.sequence,
      hash: c.hash as string,
      at: c.at as string,
      signature: c.signature as string,
      keyId: c.keyId ?? null,
    };
  } catch {
    return undefined;
  }
}

/** A line of the file that is not a checkpoint: the file was damaged or is not one. */
export class CheckpointFileError extends Error {}

/**
 * Adds one line of checkpoints kept outside the database (the file, a witness's answer) to
 * `byMerchant`; a blank line is skipped, anything else that is not a checkpoint throws
 * CheckpointFileError naming `where` and the line's number.
 */
export function keepLine(
  byMerchant: Map<string, AuditCheckpoint[]>,
  line: string,
  number: number,
  where: string,
): void {
  if (line.trim() === '') return;
  const c = parseCheckpoint(line);
  if (!c) throw new CheckpointFileError(`${where}: line ${number} is not a checkpoint`);
  const list = byMerchant.get(c.merchantId);
  if (list) list.push(c);
  else byMerchant.set(c.merchantId, [c]);
}

/**
 * Every checkpoint of the file, by merchant, read a line at a time; undefined when there is no file
 * (the gateway has signed nothing there yet). Throws CheckpointFileError naming a bad line.
 */
export async function readCheckpointFile(file: string): Promise<Map<string, AuditCheckpoint[]> | undefined> {
  const byMerchant = new Map<string, AuditCheckpoint[]>();
  const stream = createReadStream(file, 'utf8');
  const opened = new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(false) : reject(error)));
  });
  if (!(await opened)) return undefined;
  let number = 0;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity }))
    keepLine(byMerchant, line, ++number, file);
  return byMerchant;
}
