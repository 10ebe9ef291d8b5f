import { generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Where the development audit signing key lives: gitignored, beside the project, as the development JWT key. */
export const DEV_AUDIT_KEY_FILE = join(process.cwd(), '.dev', 'audit-key.pem');

/** The development key's PEM, read, or undefined when there is none yet. */
export async function readDevAuditKey(file = DEV_AUDIT_KEY_FILE): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The development audit signing key, made on first use. Written with `wx` so two processes starting
 * at once keep one key: the one that loses the race reads the winner's.
 */
export async function loadOrCreateDevAuditKey(file = DEV_AUDIT_KEY_FILE): Promise<string> {
  const existing = await readDevAuditKey(file);
  if (existing !== undefined) return existing;
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateDevAuditKey(file);
    throw error;
  }
  return pem;
}
