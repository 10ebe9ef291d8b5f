import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { SecretKind, SECRETS } from '../../src/config.secrets';
import { SETTINGS } from '../../src/config.settings';
import { headingAnchor, secretsTable, withSecretsTable } from '../../src/config.table';
import { auditSigningKeys } from '../../src/disbursements/audit.keys';
import { capturedLogs, gql, knownSecrets, startStack } from '../support/stack';

const docs = join(__dirname, '..', '..', 'docs');
const KINDS: SecretKind[] = Object.values(SECRETS);
const whsec = () => `whsec_${randomBytes(24).toString('base64')}`;
const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('docs/security.md', () => {
  const page = readFileSync(join(docs, 'security.md'), 'utf8');

  it('holds exactly the secrets table the declaration generates (run `npm run config:table` after changing it)', () => {
    expect(withSecretsTable(page)).toBe(page);
  });

  it('names every kind of secret, the router tokens among them', () => {
    for (const kind of KINDS) expect(secretsTable()).toContain(`| ${kind.name} `);
    expect(secretsTable()).toContain('`TRUSTED_DOCUMENTS_ROUTER_TOKENS`');
  });
});

describe('the rotation runbook (docs/operations.md, "Rotating secrets")', () => {
  const page = readFileSync(join(docs, 'operations.md'), 'utf8');
  const section = page.slice(
    page.indexOf('## Rotating secrets\n'),
    page.indexOf('\n## ', page.indexOf('## Rotating secrets\n') + 1),
  );
  const headings = [...section.matchAll(/^### (.+)$/gm)].map((m) => m[1]);

  it.each(KINDS.map((kind) => [kind.name, kind]))('has the section the table links for %s', (_name, kind) => {
    expect(headings).toContain(kind.rotation);
    expect(secretsTable()).toContain(`operations.md#${headingAnchor(kind.rotation)}`);
  });
});

describe('the declaration', () => {
  it('covers every setting whose name says it holds a secret, and every database URL (their passwords)', () => {
    const names = Object.values(SETTINGS).flatMap((settings) => Object.keys(settings));
    const secretLooking = names.filter((name) => /SECRET|TOKENS?$|_KEY$|PASSWORD|^DATABASE.*_URL$/.test(name));
    expect(secretLooking.sort()).toEqual(KINDS.flatMap((kind) => kind.settings).sort());
  });

  it('collects every form of every secret the settings hold', () => {
    const webhook = whsec();
    const relay = whsec();
    const sandbox = whsec();
    const auditKey = pem();
    const router = `router-${randomUUID()}`;
    const config = loadConfig({
      UPSTREAM_BASE_URL: 'https://provider.invalid',
      MERCHANT_API_KEY: 'merchant-key-0123',
      CLIENT_TOKENS: 'client-token-a-0123456789,client-token-b-0123456789',
      WEBHOOK_SECRET: `${webhook} ${whsec()}`,
      SANDBOX_WEBHOOK_SECRET: sandbox,
      RELAY_WEBHOOK_SECRET: relay,
      // Set without TRUSTED_DOCUMENTS, where the gateway does not use it: held all the same.
      TRUSTED_DOCUMENTS_ROUTER_TOKENS: router,
      DATABASE_URL: 'postgres://gateway:gate%40way-pw@db.invalid:5432/payouts',
      DATABASE_OWNER_URL: 'postgres://owner:owner-pw@db.invalid:5432/payouts',
      AUDIT_SIGNING_KEY: auditKey,
    });
    const body = auditKey.split('\n').filter((line) => line && !line.startsWith('-----'));
    const chainKey = auditSigningKeys(auditKey)[0].chainKey;
    expect(config.secrets).toEqual(
      expect.arrayContaining([
        'merchant-key-0123',
        'client-token-a-0123456789',
        'client-token-b-0123456789',
        webhook,
        webhook.slice('whsec_'.length),
        sandbox,
        relay,
        relay.slice('whsec_'.length),
        router,
        'gate@way-pw',
        'owner-pw',
        ...body,
        body.join(''),
        chainKey.toString('hex'),
        chainKey.toString('base64'),
      ]),
    );
  });
});

describe("a gateway's secrets", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'payout-gateway-secrets-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds every secret it was given and made, per merchant too, and no log line shows one', async () => {
    const merchant = { apiKey: 'sandbox-key', token: `token-${randomUUID()}`, webhookSecret: whsec() };
    const merchantsFile = join(dir, 'merchants.json');
    writeFileSync(
      merchantsFile,
      JSON.stringify([
        { id: 'm1', apiKey: merchant.apiKey, clientTokens: [merchant.token], webhookSecret: merchant.webhookSecret },
      ]),
    );
    const given = {
      relay: whsec(),
      sandbox: whsec(),
      router: `router-${randomUUID()}`,
      auditKey: pem(),
    };
    const stack = await startStack({
      env: {
        MERCHANTS_FILE: merchantsFile,
        RELAY_WEBHOOK_SECRET: given.relay,
        SANDBOX_WEBHOOK_SECRET: given.sandbox,
        TRUSTED_DOCUMENTS_ROUTER_TOKENS: given.router,
        AUDIT_SIGNING_KEY: given.auditKey,
      },
    });
    try {
      const callbackToken = new URL(stack.gateway.callbackUrl('m1')).pathname.split('/').pop()!;
      const values = [
        merchant.apiKey,
        merchant.token,
        merchant.webhookSecret,
        callbackToken,
        stack.webhookSecret,
        given.relay,
        given.sandbox,
        given.router,
        ...given.auditKey.split('\n').filter((line) => line && !line.startsWith('-----')),
      ];
      const held = new Set(stack.gateway.secrets);
      expect(values.filter((value) => !held.has(value))).toEqual([]);
      expect(values.filter((value) => !knownSecrets.has(value))).toEqual([]);
      const before = capturedLogs.length;
      stack.gateway.logger.warn(`every secret in one line: ${values.join(' ')}`);
      // A request through the gateway, so its own lines are in the logs too.
      await gql(stack.graphqlUrl, '{ walletBalance { amount } }', {}, { authorization: `Bearer ${merchant.token}` });
      const lines = capturedLogs.slice(before).join('\n');
      expect(lines).toContain('every secret in one line: [redacted]');
      expect(values.filter((value) => lines.includes(value))).toEqual([]);
    } finally {
      await stack.close();
    }
  });
});
