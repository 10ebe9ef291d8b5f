import { createHash } from 'node:crypto';
import { GatewayError } from '../disbursements/disbursement.errors';
import { Logger } from '../observability/logger';
import { clientKey } from './client.rate-limit';
import { JwtRefusal, JwtVerifier, looksLikeJwt } from './jwt.verifier';
import { MerchantAccount, MerchantRegistry } from './merchant.registry';

/** What a caller may do; a JWT carries some of them, a shared token all. */
export const SCOPES = { read: 'payouts:read', write: 'payouts:write' } as const;
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
const ALL_SCOPES: ReadonlySet<string> = new Set(Object.values(SCOPES));

/** An authenticated caller. */
export interface Principal {
  merchant: MerchantAccount;
  scopes: ReadonlySet<string>;
  /** When the credential stops being accepted (ms since the epoch); shared tokens never expire. */
  acceptedUntil?: number;
  /** The key its operations count against in the rate limit. */
  quotaKey: string;
}

export type Authentication = { principal: Principal } | { refused: GatewayError };

export interface ClientAuthOptions {
  merchants: MerchantRegistry;
  /** Unset: no JWTs are accepted. */
  jwt?: JwtVerifier;
  /** No shared tokens and no JWT_JWKS_URL: callers without credentials act as the single merchant. */
  openAccess: boolean;
  logger: Logger;
}

const bearerOf = (authorization: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];

const unauthenticated = (message = 'Missing or invalid client credentials: send Authorization: Bearer <token>') => ({
  refused: new GatewayError('UNAUTHENTICATED', message),
});

/**
 * Client credentials → principal, for HTTP and websockets alike: a shared token (MerchantRegistry)
 * or a JWT from the identity provider, whose merchant claim must name a merchant of this gateway.
 */
export class ClientAuth {
  constructor(private readonly opts: ClientAuthOptions) {}

  async authenticate(authorization: string | undefined, remoteAddress: string | undefined): Promise<Authentication> {
    const { merchants, jwt, openAccess } = this.opts;
    const token = bearerOf(authorization);
    const everything = (merchant: MerchantAccount) => ({
      principal: { merchant, scopes: ALL_SCOPES, quotaKey: clientKey(authorization, remoteAddress) },
    });
    if (token !== undefined && !merchants.openAccess) {
      const shared = merchants.authenticate(authorization);
      if (shared) return everything(shared);
    }
    // Under open access a JWT is still checked, so a developer sees what their token would be allowed.
    if (token !== undefined && jwt && looksLikeJwt(token)) return this.fromJwt(jwt, token, authorization, remoteAddress);
    const single = openAccess ? merchants.authenticate(undefined) : undefined;
    return single ? everything(single) : unauthenticated();
  }

  private async fromJwt(
    jwt: JwtVerifier,
    token: string,
    authorization: string | undefined,
    remoteAddress: string | undefined,
  ): Promise<Authentication> {
    let verified;
    try {
      verified = await jwt.verify(token);
    } catch (error) {
      if (!(error instanceof JwtRefusal)) throw error;
      if (error.keysUnavailable) {
        this.opts.logger.warn('JWT key set unreachable: bearer JWTs are refused until it answers');
        return { refused: new GatewayError('SERVICE_UNAVAILABLE', 'The gateway cannot check tokens right now; retry later') };
      }
      return unauthenticated(`Invalid token: ${error.message}`);
    }
    const merchant = verified.merchantId === undefined ? undefined : this.opts.merchants.byId(verified.merchantId);
    if (!merchant) return { refused: new GatewayError('FORBIDDEN', 'The token names no merchant served by this gateway') };
    // One user keeps one quota across token refreshes.
    const quotaKey =
      verified.subject !== undefined
        ? `j:${createHash('sha256')
            .update(`${verified.issuer ?? ''}\n${verified.subject}\n${merchant.id}`)
            .digest('base64url')
            .slice(0, 22)}`
        : clientKey(authorization, remoteAddress);
    return { principal: { merchant, scopes: verified.scopes, acceptedUntil: verified.acceptedUntil, quotaKey } };
  }
}
