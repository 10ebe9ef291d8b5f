import { createHash } from 'node:crypto';
import { forbidden, GatewayError } from '../disbursements/disbursement.errors';
import { credentialsUncheckable, unauthenticated } from './auth.errors';
import { Actor, ANONYMOUS } from '../disbursements/payout.controls';
import { REPEATED_LINES, throttle } from '../observability/log.throttle';
import { Logger } from '../observability/pino.logger';
import { clientKey } from './client.rate-limit';
import { JwtRefusal, JwtVerifier, looksLikeJwt } from './jwt.verifier';
import { MerchantAccount, MerchantRegistry, TokenIdentity } from './merchant.registry';

/** What a caller may do; a JWT carries some of them, a shared token all. */
export const SCOPES = {
  read: 'payouts:read',
  write: 'payouts:write',
  approve: 'payouts:approve',
  audit: 'audit:read',
  export: 'payouts:export',
  /** The beneficiary book: beneficiary and beneficiaries. */
  beneficiariesRead: 'beneficiaries:read',
  /** createBeneficiary, updateBeneficiary, archiveBeneficiary. */
  beneficiariesWrite: 'beneficiaries:write',
} as const;
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
const ALL_SCOPES: ReadonlySet<string> = new Set(Object.values(SCOPES));

/** An authenticated caller. */
export interface Principal {
  merchant: MerchantAccount;
  /** Who is acting: what the payout controls and the history name. */
  actor: Actor;
  scopes: ReadonlySet<string>;
  /** When the credential stops being accepted (ms since the epoch); shared tokens never expire. */
  acceptedUntil?: number;
  /** Aborted when a reload of MERCHANTS_FILE drops the shared token, or a JWT's merchant: what it opened ends then. */
  revoked?: AbortSignal;
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

const refusedAs = (error: GatewayError): Authentication => ({ refused: error });

/**
 * Client credentials → principal, for HTTP and websockets alike: a shared token (MerchantRegistry)
 * or a JWT from the identity provider, whose merchant claim must name a merchant of this gateway.
 */
export class ClientAuth {
  /** A key set outage meets every JWT request: a few lines a minute say so. */
  private readonly outageLine = throttle(REPEATED_LINES.max, REPEATED_LINES.windowMs);

  constructor(private readonly opts: ClientAuthOptions) {}

  async authenticate(authorization: string | undefined, remoteAddress: string | undefined): Promise<Authentication> {
    const { merchants, jwt, openAccess } = this.opts;
    const token = bearerOf(authorization);
    const everything = ({ merchant, actor, revoked, quotaKey }: TokenIdentity) => ({
      principal: {
        merchant,
        actor,
        scopes: ALL_SCOPES,
        revoked,
        quotaKey: quotaKey ?? clientKey(authorization, remoteAddress),
      },
    });
    if (token !== undefined && !merchants.openAccess) {
      const shared = merchants.identify(authorization);
      if (shared) return everything(shared);
    }
    // Under open access a JWT is still checked, so a developer sees what their token would be allowed.
    if (token !== undefined && jwt && looksLikeJwt(token))
      return this.fromJwt(jwt, token, authorization, remoteAddress);
    const single = openAccess ? merchants.authenticate(undefined) : undefined;
    return single ? everything({ merchant: single, actor: ANONYMOUS }) : refusedAs(unauthenticated());
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
        const { pass, suppressed } = this.outageLine();
        if (pass)
          this.opts.logger.warn(
            { ...(suppressed > 0 && { suppressed }) },
            'JWT key set unavailable: JWTs it cannot check get 503 until it answers',
          );
        return refusedAs(credentialsUncheckable());
      }
      return refusedAs(unauthenticated(`Invalid token: ${error.message}`));
    }
    const merchant = verified.merchantId === undefined ? undefined : this.opts.merchants.byId(verified.merchantId);
    if (!merchant) return refusedAs(forbidden('The token names no merchant served by this gateway'));
    // One user keeps one quota across token refreshes.
    const quotaKey =
      verified.subject !== undefined
        ? `j:${createHash('sha256')
            .update(`${verified.issuer ?? ''}\n${verified.subject}\n${merchant.id}`)
            .digest('base64url')
            .slice(0, 22)}`
        : clientKey(authorization, remoteAddress);
    // iss + sub is the person; a token without sub is its own actor (distinct credentials, distinct actors).
    const actor: Actor = {
      id: `jwt:${createHash('sha256')
        .update(verified.subject !== undefined ? `${verified.issuer ?? ''}\n${verified.subject}` : token)
        .digest('base64url')
        .slice(0, 22)}`,
      name: verified.subject ?? 'unnamed token',
    };
    const { scopes, acceptedUntil } = verified;
    const revoked = this.opts.merchants.removalOf(merchant.id);
    return { principal: { merchant, actor, scopes, acceptedUntil, revoked, quotaKey } };
  }
}
