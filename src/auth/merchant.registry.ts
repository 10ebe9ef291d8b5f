import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Config, ConfigError } from '../config';
import { merchantSecrets } from '../config.secrets';
import { Merchant } from '../disbursements/disbursement.ports';
import { MerchantChanges } from '../disbursements/merchants.reload';
import { Actor, ANONYMOUS } from '../disbursements/payout.controls';
import { tokenQuotaKey } from './client.rate-limit';
import { MerchantSpec, readMerchantsFile } from './merchants.file';
import { parseControlsJson } from './payout-controls.schema';

export interface MerchantAccount extends Merchant {
  /** Unguessable path segment of this merchant's callback address, stable across replicas. */
  callbackToken: string;
  /** Standard Webhooks secrets this merchant's callbacks may be signed with (several while one is rotated); unset: WEBHOOK_SECRET's. */
  webhookSecrets?: string[];
}

/** Who a shared token acts as, and the signal that ends what it opened once a reload drops it. */
export interface TokenIdentity {
  merchant: MerchantAccount;
  actor: Actor;
  revoked?: AbortSignal;
  /** The quota this token counts against (clientKey's form), derived once per token, not per request. */
  quotaKey?: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

interface TokenEntry {
  digest: Buffer;
  actor: Actor;
  quotaKey: string;
  /** `<merchant id>:<token digest>`: the same token of the same merchant across reloads. */
  key: string;
  revocation: AbortController;
}

interface State {
  /** Each merchant's tokens, and the signal that ends what any of its credentials (a JWT too) opened once a reload removes it. */
  entries: { merchant: MerchantAccount; tokens: TokenEntry[]; removal: AbortController }[];
  byCallbackToken: Map<string, MerchantAccount>;
  byMerchantId: Map<string, MerchantAccount>;
  /** A digest of each merchant's whole configuration, to tell what a reload changed. */
  fingerprints: Map<string, string>;
  secretValues: string[];
}

/** A shared token's actor: its name (or its position), and an id derived from, never equal to, the token. */
function tokenActor(merchantId: string, token: string, name: string | undefined, index: number): Actor {
  return {
    id: `token:${createHash('sha256').update(`${merchantId}\n${token}`).digest('base64url').slice(0, 22)}`,
    name: name ?? `token-${index + 1}`,
  };
}

function stateOf(merchants: MerchantSpec[]): State {
  const byCallbackToken = new Map<string, MerchantAccount>();
  const byMerchantId = new Map<string, MerchantAccount>();
  const entries = merchants.map((m) => {
    const callbackToken = createHmac('sha256', m.apiKey).update(`callbacks:${m.id}`).digest('base64url');
    const merchant = {
      id: m.id,
      apiKey: m.apiKey,
      callbackToken,
      webhookSecrets: m.webhookSecret,
      controls: m.controls,
    };
    byCallbackToken.set(callbackToken, merchant);
    byMerchantId.set(m.id, merchant);
    const tokens = m.clientTokens.map((t, i) => {
      const d = digest(t.token);
      return {
        digest: d,
        actor: tokenActor(m.id, t.token, t.name, i),
        quotaKey: tokenQuotaKey(d),
        key: `${m.id}:${d.toString('hex')}`,
        revocation: new AbortController(),
      };
    });
    return { merchant, tokens, removal: new AbortController() };
  });
  return {
    entries,
    byCallbackToken,
    byMerchantId,
    fingerprints: new Map(merchants.map((m) => [m.id, digest(JSON.stringify(m)).toString('hex')])),
    secretValues: merchants.flatMap((m, i) =>
      merchantSecrets({ ...m, callbackToken: entries[i].merchant.callbackToken }),
    ),
  };
}

/**
 * Client credentials → merchant. Tokens are compared as digests in constant time. A reload
 * (`replaceWith`) swaps the whole set at once: a request that already found its merchant keeps
 * that account, the next one finds the new.
 */
export class MerchantRegistry {
  private state: State;
  /** Callback path tokens of earlier keys (a reload changed the merchant's apiKey): payouts sent before still call back there. */
  private readonly earlierCallbackTokens = new Map<string, string>();

  private constructor(merchants: MerchantSpec[]) {
    this.state = stateOf(merchants);
  }

  /** From MERCHANTS_FILE, or the single merchant of MERCHANT_API_KEY and CLIENT_TOKENS. */
  static fromConfig(config: Config, upstreamIsEmbeddedSandbox: boolean): MerchantRegistry {
    if (config.merchantsFile) return new MerchantRegistry(readMerchantsFile(config.merchantsFile));
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

  /**
   * Takes `next`'s merchants in one step and says which were added, changed and removed. The
   * subscriptions of a token no longer listed (for its merchant) are told through its signal; a
   * token kept keeps its signal, so a later reload can still end what it opened. Likewise each
   * merchant's own signal, told when the merchant is removed (what its JWTs opened ends).
   */
  replaceWith(next: MerchantRegistry): MerchantChanges {
    const changes = this.changesTo(next);
    const before = this.state;
    const after = next.state;
    const kept = new Map(before.entries.flatMap((e) => e.tokens).map((t) => [t.key, t]));
    for (const token of after.entries.flatMap((e) => e.tokens)) {
      const earlier = kept.get(token.key);
      if (!earlier) continue;
      token.revocation = earlier.revocation;
      kept.delete(token.key);
    }
    const removals = new Map(before.entries.map((e) => [e.merchant.id, e.removal]));
    for (const entry of after.entries) {
      const earlier = removals.get(entry.merchant.id);
      if (!earlier) continue;
      entry.removal = earlier;
      removals.delete(entry.merchant.id);
    }
    for (const merchant of before.byMerchantId.values()) {
      const now = after.byMerchantId.get(merchant.id);
      if (now && now.callbackToken !== merchant.callbackToken)
        this.earlierCallbackTokens.set(merchant.callbackToken, merchant.id);
    }
    this.state = after;
    for (const dropped of kept.values()) dropped.revocation.abort();
    for (const removed of removals.values()) removed.abort();
    return changes;
  }

  /** Which merchants taking `next` would add, change (any field, credentials included) and remove. */
  changesTo(next: MerchantRegistry): MerchantChanges {
    const [before, after] = [this.state, next.state];
    const ids = (state: State) => [...state.byMerchantId.keys()].sort();
    return {
      added: ids(after).filter((id) => !before.byMerchantId.has(id)),
      changed: ids(after).filter(
        (id) => before.fingerprints.has(id) && before.fingerprints.get(id) !== after.fingerprints.get(id),
      ),
      removed: ids(before).filter((id) => !after.byMerchantId.has(id)),
    };
  }

  /** No client credentials are configured: everyone acts as the single merchant. */
  get openAccess(): boolean {
    const { entries } = this.state;
    return entries.length === 1 && entries[0].tokens.length === 0;
  }

  /** Every merchant's id, in id order. */
  ids(): string[] {
    return [...this.state.byMerchantId.keys()].sort();
  }

  byId(merchantId: string): MerchantAccount | undefined {
    return this.state.byMerchantId.get(merchantId);
  }

  /** The signal told when a reload removes the merchant; undefined for a merchant not served. */
  removalOf(merchantId: string): AbortSignal | undefined {
    return this.state.entries.find((e) => e.merchant.id === merchantId)?.removal.signal;
  }

  /** The merchant a bearer credential belongs to; undefined when it is missing or wrong. */
  authenticate(authorization: string | undefined): MerchantAccount | undefined {
    return this.identify(authorization)?.merchant;
  }

  /** The merchant and the actor of a bearer credential (the anonymous actor under open access). */
  identify(authorization: string | undefined): TokenIdentity | undefined {
    const { entries } = this.state;
    if (this.openAccess) return { merchant: entries[0].merchant, actor: ANONYMOUS };
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) return undefined;
    const presented = digest(token);
    let found: TokenIdentity | undefined;
    // Every digest is compared, so timing tells nothing about which merchant or token came close.
    for (const entry of entries) {
      for (const t of entry.tokens) {
        if (timingSafeEqual(t.digest, presented))
          found = { merchant: entry.merchant, actor: t.actor, revoked: t.revocation.signal, quotaKey: t.quotaKey };
      }
    }
    return found;
  }

  /** The merchant of a callback path, under its current key or an earlier one. */
  byCallback(token: string): MerchantAccount | undefined {
    const current = this.state.byCallbackToken.get(token);
    if (current) return current;
    const earlier = this.earlierCallbackTokens.get(token);
    return earlier === undefined ? undefined : this.byId(earlier);
  }

  /** Every form of every merchant's secrets, as config.secrets.ts declares them, for redaction. */
  secrets(): string[] {
    return this.state.secretValues;
  }
}
