import { calculateJwkThumbprint, exportJWK, generateKeyPair, JWK } from 'jose';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Where the development key pair lives: gitignored, beside the project, shared by `npm start` and `npm run token`. */
export const DEV_KEY_FILE = join(process.cwd(), '.dev', 'jwt-key.json');

export const DEV_ALGORITHM = 'ES256';

export interface DevKey {
  /** The private key, as a JWK with its `kid`: only `npm run token` reads it. */
  privateJwk: JWK;
  /** The public half, as the embedded sandbox serves it at /.well-known/jwks.json. */
  publicJwk: JWK;
}

function publicHalf({ kty, crv, x, y, kid }: JWK): JWK {
  return { kty, crv, x, y, kid, alg: DEV_ALGORITHM, use: 'sig' };
}

/**
 * The development signing key, made on first use. Written with `wx` so two processes starting at
 * once keep one key: the one that loses the race reads the winner's.
 */
export async function loadOrCreateDevKey(file = DEV_KEY_FILE): Promise<DevKey> {
  try {
    const privateJwk = JSON.parse(await readFile(file, 'utf8')) as JWK;
    return { privateJwk, publicJwk: publicHalf(privateJwk) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = await generateKeyPair(DEV_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const privateJwk = { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: DEV_ALGORITHM };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${JSON.stringify(privateJwk, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateDevKey(file);
    throw error;
  }
  return { privateJwk, publicJwk: publicHalf(privateJwk) };
}
