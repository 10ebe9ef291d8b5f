import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Config, ConfigError } from '../config';
import { Merchant } from '../disbursements/disbursement.ports';
import { Actor, ANONYMOUS, PayoutControls } from '../disbursements/payout.controls';
import { parseControls, parseControlsJson } from './payout-controls.schema';

export interface MerchantAccount extends Merchant {
  /** Unguessable path segment of this merchant's callback address, stable across replicas. */
  callbackToken: string;
  /** Standard Webhooks secrets this merchant's callbacks may be signed with (several while one is rotated); unset: WEBHOOK_SECRET's. */
  webhookSecrets?: string[];
}

const clientToken = z.string().min(16, 'client tokens must be at least 16 characters');

const merchantsFileSchema = z
  .array(
    z.object({
      id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'id must be 1-64 letters, digits, _ or -'),
      apiKey: z.string().min(1),
      clientTokens: z
        .array(
          z.union([
            clientToken,
            // A named token: the name is who acts with it (payout controls, history), never the token.
            z.strictObject({ token: clientToken, name: z.string().trim().min(1).max(64) }),
          ]),
        )
        .min(1),
      controls: z.unknown().optional(),
      webhookSecret: z
        .string()
        .transform((v) => v.split(/\s+/).filter((secret) => secret.length > 0))
        .refine(
          (secrets) => secrets.length > 0 && secrets.every((secret) => /^whsec_[A-Za-z0-9+/=]{16,}$/.test(secret)),
          'webhookSecret must be whsec_ followed by base64 (several separated by spaces)',
        )
        .optional(),
    }),
  )
  .min(1);

const digest = (value: string) => createHash('sha256').update(value).digest();

interface Entry {
  merchant: MerchantAccount;
  tokenDigests: Buffer[];
  /** Who acts with each token, in the same order. */
  actors: Actor[];
}

interface MerchantSpec {
  id: string;
  apiKey: string;
  clientTokens: { token: string; name?: string }[];
  webhookSecret?: string[];
  controls?: PayoutControls;
}

/** A shared token's actor: its name (or its position), and an id derived from, never equal to, the token. */
function tokenActor(merchantId: string, token: string, name: string | undefined, index: number): Actor {
  return {
    id: `token:${createHash('sha256').update(`${merchantId}\n${token}`).digest('base64url').slice(0, 22)}`,
    name: name ?? `token-${index + 1}`,
  };
}

/** Client credentials → merchant. Tokens are compared as digests in constant time. */
export class MerchantRegistry {
  private readonly entries: Entry[];
  private readonly byCallbackToken = new Map<string, MerchantAccount>();
  private readonly byMerchantId = new Map<string, MerchantAccount>();
  private readonly secretValues: string[];

  private constructor(merchants: MerchantSpec[]) {
    this.entries = merchants.map((m) => {
      const callbackToken = createHmac('sha256', m.apiKey).update(`callbacks:${m.id}`).digest('base64url');
      const merchant = {
        id: m.id,
        apiKey: m.apiKey,
        callbackToken,
        webhookSecrets: m.webhookSecret,
        controls: m.controls,
      };
      this.byCallbackToken.set(callbackToken, merchant);
      this.byMerchantId.set(m.id, merchant);
      return {
        merchant,
        tokenDigests: m.clientTokens.map((t) => digest(t.token)),
        actors: m.clientTokens.map((t, i) => tokenActor(m.id, t.token, t.name, i)),
      };
    });
    // The callback token and webhook secret authenticate the provider's callbacks: credentials like the others.
    this.secretValues = merchants
      .flatMap((m) => [m.apiKey, ...m.clientTokens.map((t) => t.token), ...webhookSecretForms(m.webhookSecret)])
      .concat([...this.byCallbackToken.keys()]);
  }

  /** From MERCHANTS_FILE, or the single merchant of MERCHANT_API_KEY and CLIENT_TOKENS. */
  static fromConfig(config: Config, upstreamIsEmbeddedSandbox: boolean): MerchantRegistry {
    if (config.merchantsFile) {
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(config.merchantsFile, 'utf8'));
      } catch (error) {
        throw new ConfigError(
          `Invalid setting MERCHANTS_FILE: cannot read JSON (${(error as Error).message.split('\n')[0]})`,
        );
      }
      const parsed = merchantsFileSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ConfigError(`Invalid setting MERCHANTS_FILE: at [${issue.path.join('.')}] ${issue.message}`);
      }
      const ids = parsed.data.map((m) => m.id);
      const repeatedId = ids.find((id, i) => ids.indexOf(id) !== i);
      if (repeatedId)
        throw new ConfigError(`Invalid setting MERCHANTS_FILE: merchant id "${repeatedId}" is listed more than once`);
      // One provider key under two merchants would let each read, squat and be told of the other's referenceIds.
      const keys = parsed.data.map((m) => m.apiKey);
      const repeatedKey = keys.findIndex((key, i) => keys.indexOf(key) !== i);
      if (repeatedKey !== -1) {
        const first = parsed.data[keys.indexOf(keys[repeatedKey])].id;
        throw new ConfigError(
          `Invalid setting MERCHANTS_FILE: merchants "${first}" and "${parsed.data[repeatedKey].id}" have the same apiKey; each merchant needs its own`,
        );
      }
      const specs: MerchantSpec[] = parsed.data.map((m) => ({
        ...m,
        clientTokens: m.clientTokens.map((t) => (typeof t === 'string' ? { token: t } : t)),
        controls: m.controls === undefined ? undefined : parseControls(m.controls, 'MERCHANTS_FILE', m.id),
      }));
      const tokens = specs.flatMap((m) => m.clientTokens.map((t) => t.token));
      // A token under two merchants would authenticate as whichever came last: one merchant acting as another.
      if (new Set(tokens).size !== tokens.length)
        throw new ConfigError('Invalid setting MERCHANTS_FILE: a client token is listed more than once');
      return new MerchantRegistry(specs);
    }
    if (config.clientTokens.length === 0 && !upstreamIsEmbeddedSandbox && !config.jwt.jwksUrl) {
      throw new ConfigError(
        'Missing setting CLIENT_TOKENS (or MERCHANTS_FILE, or JWT_JWKS_URL): open access is allowed only with the embedded sandbox',
      );
    }
    const apiKey = config.merchantApiKey ?? 'sandbox-key';
    const controls =
      config.payoutControls === undefined ? undefined : parseControlsJson(config.payoutControls, 'default');
    return new MerchantRegistry([
      { id: 'default', apiKey, clientTokens: config.clientTokens.map((token) => ({ token })), controls },
    ]);
  }

  /** No client credentials are configured: everyone acts as the single merchant. */
  get openAccess(): boolean {
    return this.entries.length === 1 && this.entries[0].tokenDigests.length === 0;
  }

  /** Every merchant's id, in id order. */
  ids(): string[] {
    return [...this.byMerchantId.keys()].sort();
  }

  byId(merchantId: string): MerchantAccount | undefined {
    return this.byMerchantId.get(merchantId);
  }

  /** The merchant a bearer credential belongs to; undefined when it is missing or wrong. */
  authenticate(authorization: string | undefined): MerchantAccount | undefined {
    return this.identify(authorization)?.merchant;
  }

  /** The merchant and the actor of a bearer credential (the anonymous actor under open access). */
  identify(authorization: string | undefined): { merchant: MerchantAccount; actor: Actor } | undefined {
    if (this.openAccess) return { merchant: this.entries[0].merchant, actor: ANONYMOUS };
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) return undefined;
    const presented = digest(token);
    let found: { merchant: MerchantAccount; actor: Actor } | undefined;
    // Every digest is compared, so timing tells nothing about which merchant or token came close.
    for (const entry of this.entries) {
      entry.tokenDigests.forEach((d, i) => {
        if (timingSafeEqual(d, presented)) found = { merchant: entry.merchant, actor: entry.actors[i] };
      });
    }
    return found;
  }

  byCallback(token: string): MerchantAccount | undefined {
    return this.byCallbackToken.get(token);
  }

  /** Every merchant key, client token, callback path token and merchant webhook secret, for redaction. */
  secrets(): string[] {
    return this.secretValues;
  }
}

/** Each `whsec_` secret as written, and its key part alone (what a leak of the decoded value would start from). */
export function webhookSecretForms(secrets: readonly string[] | undefined): string[] {
  return (secrets ?? []).flatMap((secret) =>
    secret.startsWith('whsec_') ? [secret, secret.slice('whsec_'.length)] : [secret],
  );
}
