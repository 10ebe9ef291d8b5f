import { Settings } from './config.settings';
import { databasePassword, databaseTarget } from './database/database.target';
import { auditSigningKeys } from './disbursements/audit.keys';

/**
 * Every kind of secret the gateway holds, written once: where its values come from (settings, a merchant's
 * entry in MERCHANTS_FILE, a file or a value made at start), what it opens, its rotation runbook, and every
 * form in which a value could leak. The logger's and the scrubbers' list (`settingSecrets`, `merchantSecrets`),
 * the table of docs/security.md (`npm run config:table`) and the tests' known secrets are built from it.
 */

/** One merchant's credentials as configured, and the callback path token derived from its key. */
export interface MerchantCredentials {
  apiKey: string;
  clientTokens: readonly { token: string }[];
  webhookSecret?: readonly string[];
  callbackToken: string;
}

/** The settings that hold text: a secret's value, or a list of them while one is rotated. */
type TextSetting = {
  [K in keyof Settings]-?: Settings[K] extends string | readonly string[] | undefined ? K : never;
}[keyof Settings];

export interface SecretKind {
  /** What the docs call it. */
  name: string;
  /** The settings that hold its values. */
  settings: readonly TextSetting[];
  /** What part of those settings' values is the secret, when not the whole. */
  part?: string;
  /** Its values in one merchant's credentials, and the field of MERCHANTS_FILE that holds them (none: derived). */
  merchant?: { field?: string; values: (merchant: MerchantCredentials) => readonly string[] };
  /** Where else a value comes from, in the docs' words. */
  also?: string;
  /** What whoever holds it can do. */
  opens: string;
  /** Its runbook: a heading under "Rotating secrets" in docs/operations.md. */
  rotation: string;
  /** Every form in which one value could leak, the value itself first. */
  forms: (value: string) => string[];
}

const itself = (value: string) => [value];

/** A `whsec_` secret as written, and its key part alone (what a leak of the decoded value would start from). */
const webhookForms = (secret: string) =>
  secret.startsWith('whsec_') ? [secret, secret.slice('whsec_'.length)] : [secret];

/**
 * Each PEM's body lines and body whole, and each key's chain key (the HMAC key of the entries, derived from it)
 * in hex and base64.
 */
function auditKeyForms(pem: string): string[] {
  const bodies = pem
    .split(/-----END [A-Z ]+-----/)
    .map((block) => block.split('\n').filter((line) => line.trim().length > 0 && !line.startsWith('-----')))
    .filter((body) => body.length > 0);
  return [
    ...bodies.flat(),
    ...bodies.map((body) => body.join('')),
    ...auditSigningKeys(pem).flatMap((k) => [k.chainKey.toString('hex'), k.chainKey.toString('base64')]),
  ];
}

/** The password of a `postgres://` URL, as written in it and decoded; none for `sqlite:`. */
function urlPasswordForms(url: string): string[] {
  const target = databaseTarget(url);
  const password = target && databasePassword(target);
  return password ? [password] : [];
}

const MERCHANT_KEY_RUNBOOK = "A merchant's API key and client tokens";

export const SECRETS = {
  merchantKeys: {
    name: 'merchant keys',
    settings: ['MERCHANT_API_KEY'],
    merchant: { field: 'apiKey', values: (m) => [m.apiKey] },
    opens: "the merchant's wallet at the provider",
    rotation: MERCHANT_KEY_RUNBOOK,
    forms: itself,
  },
  clientTokens: {
    name: 'client tokens',
    settings: ['CLIENT_TOKENS'],
    merchant: { field: 'clientTokens', values: (m) => m.clientTokens.map((t) => t.token) },
    opens: 'every operation of that merchant',
    rotation: MERCHANT_KEY_RUNBOOK,
    forms: itself,
  },
  callbackTokens: {
    name: 'callback path tokens',
    settings: [],
    merchant: { values: (m) => [m.callbackToken] },
    also: "derived from each merchant's key at start (`/callbacks/<token>`)",
    opens: 'posting callbacks when no webhook secret is set',
    rotation: MERCHANT_KEY_RUNBOOK,
    forms: itself,
  },
  webhookSecrets: {
    name: 'webhook secrets',
    settings: ['WEBHOOK_SECRET', 'SANDBOX_WEBHOOK_SECRET'],
    merchant: { field: 'webhookSecret', values: (m) => m.webhookSecret ?? [] },
    also: "the embedded sandbox's, made at start when none is set",
    opens: "making a callback count as the provider's",
    rotation: "The provider's callback secret (`WEBHOOK_SECRET`, a merchant's `webhookSecret`)",
    forms: webhookForms,
  },
  relaySecret: {
    name: 'relay secret',
    settings: ['RELAY_WEBHOOK_SECRET'],
    opens: "signing relays to a client's `callbackUrl`",
    rotation: 'The relay secret (`RELAY_WEBHOOK_SECRET`)',
    forms: webhookForms,
  },
  routerTokens: {
    name: 'router tokens',
    settings: ['TRUSTED_DOCUMENTS_ROUTER_TOKENS'],
    opens: 'running operations no trusted document lists, as a supergraph router does',
    rotation: 'The router tokens (`TRUSTED_DOCUMENTS_ROUTER_TOKENS`)',
    forms: itself,
  },
  databasePasswords: {
    name: 'database passwords',
    settings: ['DATABASE_URL', 'DATABASE_OWNER_URL'],
    part: 'the password of',
    opens: "every record, the audit trail included (the owner's: the schema and the trail's guards)",
    rotation: 'The PostgreSQL password',
    forms: urlPasswordForms,
  },
  auditSigningKey: {
    name: 'audit signing key',
    settings: ['AUDIT_SIGNING_KEY'],
    also: '`.dev/audit-key.pem`, made at first start when the setting is unset',
    opens: 'signing checkpoints, keying audit entries, sealing the payouts the gateway sends on its own',
    rotation: 'The audit signing key (`AUDIT_SIGNING_KEY`)',
    forms: auditKeyForms,
  },
  auditWitnessToken: {
    name: 'audit witness token',
    settings: ['AUDIT_WITNESS_TOKEN'],
    opens: 'publishing checkpoints to, and reading them from, the audit witness',
    rotation: 'The audit witness token (`AUDIT_WITNESS_TOKEN`)',
    forms: itself,
  },
  developmentJwtKey: {
    name: 'development JWT key',
    settings: [],
    also: '`.dev/jwt-key.json`, made at first start with the embedded sandbox',
    opens: 'minting tokens that a gateway on the embedded sandbox accepts',
    rotation: 'The development JWT key (`.dev/jwt-key.json`)',
    forms: itself,
  },
} satisfies Record<string, SecretKind>;

const KINDS: readonly SecretKind[] = Object.values(SECRETS);

/** Every form of every secret the settings hold. */
export function settingSecrets(settings: Settings): string[] {
  return KINDS.flatMap((kind) =>
    kind.settings.flatMap((name) => {
      const value = settings[name];
      return (value === undefined ? [] : typeof value === 'string' ? [value] : value).flatMap(kind.forms);
    }),
  );
}

/** Every form of every secret one merchant's credentials hold. */
export function merchantSecrets(merchant: MerchantCredentials): string[] {
  return KINDS.flatMap((kind) => (kind.merchant?.values(merchant) ?? []).flatMap(kind.forms));
}
