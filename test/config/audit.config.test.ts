import { resolve } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config';

const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const older = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

describe('the audit settings', () => {
  it('takes an Ed25519 PEM as written, or on one line with \\n for its line breaks', () => {
    expect(loadConfig({ AUDIT_SIGNING_KEY: ed25519 }).audit.signingKey).toBe(ed25519.trim());
    expect(loadConfig({ AUDIT_SIGNING_KEY: ed25519.replaceAll('\n', '\\n') }).audit.signingKey).toBe(ed25519.trim());
    expect(loadConfig({}).audit).toEqual({
      signingKey: undefined,
      checkpointSeconds: 5,
      checkpointFile: resolve('.data/gateway.audit-checkpoints.jsonl'),
    });
  });

  it('takes several keys, one PEM after another, the one in use first', () => {
    expect(loadConfig({ AUDIT_SIGNING_KEY: `${ed25519}${older}` }).audit.signingKey).toBe(`${ed25519}${older}`.trim());
  });

  it('keeps checkpoints outside the database: AUDIT_CHECKPOINT_FILE, else one file per database', () => {
    expect(loadConfig({ AUDIT_CHECKPOINT_FILE: 'kept/ckpt.jsonl' }).audit.checkpointFile).toBe(
      resolve('kept/ckpt.jsonl'),
    );
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/pay/main.db' }).audit.checkpointFile).toBe(
      '/srv/pay/main.audit-checkpoints.jsonl',
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://gw:secret@db.internal:6432/payouts' }).audit.checkpointFile).toBe(
      resolve('.data/audit-checkpoints-db.internal-6432-payouts.jsonl'),
    );
  });

  it('publishes checkpoints to AUDIT_WITNESS_URL with AUDIT_WITNESS_TOKEN, when set', () => {
    const witness = { AUDIT_WITNESS_URL: 'https://witness.example/ckpt', AUDIT_WITNESS_TOKEN: 'w'.repeat(32) };
    expect(loadConfig(witness).audit).toMatchObject({
      witnessUrl: witness.AUDIT_WITNESS_URL,
      witnessToken: 'w'.repeat(32),
    });
    expect(loadConfig({}).audit.witnessUrl).toBeUndefined();
  });

  it.each([
    ['not a key', { AUDIT_SIGNING_KEY: 'not a key' }, /^Invalid setting AUDIT_SIGNING_KEY: must be an Ed25519/],
    ['an RSA key', { AUDIT_SIGNING_KEY: rsa }, /^Invalid setting AUDIT_SIGNING_KEY: must be an Ed25519/],
    ['an RSA key after an Ed25519 one', { AUDIT_SIGNING_KEY: `${ed25519}${rsa}` }, /AUDIT_SIGNING_KEY: must be/],
    ['the same key twice', { AUDIT_SIGNING_KEY: `${ed25519}${ed25519}` }, /AUDIT_SIGNING_KEY: .*none twice/],
    ['text between keys', { AUDIT_SIGNING_KEY: `${ed25519}oops\n${older}` }, /AUDIT_SIGNING_KEY: must be/],
    ['no checkpoint interval', { AUDIT_CHECKPOINT_SECONDS: '0' }, /^Invalid setting AUDIT_CHECKPOINT_SECONDS/],
    [
      'a witness not over HTTP',
      { AUDIT_WITNESS_URL: 'ftp://witness.example/ckpt' },
      /^Invalid setting AUDIT_WITNESS_URL/,
    ],
    [
      'a witness address carrying a password',
      { AUDIT_WITNESS_URL: 'https://audit:s3cret-witness-pass@witness.example/ckpt' },
      /^Invalid setting AUDIT_WITNESS_URL: must not carry a user or password/,
    ],
    [
      'a short witness token',
      { AUDIT_WITNESS_TOKEN: 'short-token' },
      /^Invalid setting AUDIT_WITNESS_TOKEN: must be at least 16 characters/,
    ],
    [
      'an owner URL beside the embedded file',
      { DATABASE_OWNER_URL: 'postgres://owner@db/payouts' },
      /^Invalid setting DATABASE_OWNER_URL: must be postgres:\/\/\.\.\. on the same database/,
    ],
  ])('refuses %s in one line that never repeats the value', (_what, env, message) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    for (const value of Object.values(env))
      expect((error as Error).message).not.toContain(value.split('\n')[1] ?? value);
  });
});
