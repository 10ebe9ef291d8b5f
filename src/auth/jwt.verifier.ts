import { errors, jwtVerify, JWTVerifyGetKey } from 'jose';
import { KeySetUnavailable, RemoteKeySet, RemoteKeySetOptions } from './jwt.key-set';

/** Asymmetric signatures only: `none` and HS* (a shared secret, or a public key misused as one) never verify. */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Clock skew allowed between the identity provider and the gateway, for `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_S = 30;

export interface JwtVerifierOptions {
  keys: JWTVerifyGetKey;
  issuer?: string;
  audience?: string;
  merchantClaim: string;
}

export interface VerifiedJwt {
  /** Undefined when the token names no merchant. */
  merchantId?: string;
  scopes: ReadonlySet<string>;
  issuer?: string;
  subject?: string;
  /** When the token stops being accepted, tolerance included (ms since the epoch). */
  acceptedUntil: number;
}

/** Why a token was refused, in words safe to show its bearer. */
export class JwtRefusal extends Error {
  constructor(
    message: string,
    /** The key set could not be fetched: the identity provider's or the network's fault, not the token's. */
    readonly keysUnavailable = false,
  ) {
    super(message);
    this.name = 'JwtRefusal';
  }
}

/** `scope` (space-separated, OAuth 2) and `scp` (an array, or a string in some providers) together. */
function scopesOf(payload: Record<string, unknown>): Set<string> {
  const listed = [payload.scope, payload.scp].flatMap((value) => {
    if (typeof value === 'string') return value.split(' ');
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  });
  return new Set(listed.filter((s) => s.length > 0));
}

function refusalOf(error: unknown): JwtRefusal {
  if (error instanceof KeySetUnavailable) return new JwtRefusal(error.message, true);
  if (error instanceof errors.JWTExpired) return new JwtRefusal('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' || error.claim === 'iat') return new JwtRefusal('the token is not valid yet');
    if (error.claim === 'iss') return new JwtRefusal('the token comes from another issuer');
    if (error.claim === 'aud') return new JwtRefusal('the token is meant for another audience');
    return new JwtRefusal(`the token's "${error.claim}" claim is missing or invalid`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new JwtRefusal(`the token's algorithm is not accepted (only ${JWT_ALGORITHMS.join(', ')})`);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return new JwtRefusal("the token's signing key is not in the identity provider's key set");
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new JwtRefusal("the token's signature does not verify");
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError)
  )
    return new JwtRefusal("the identity provider's key set cannot be fetched right now", true);
  return new JwtRefusal('the token is malformed');
}

/** Verifies bearer JWTs against an identity provider's key set (jose). */
export class JwtVerifier {
  constructor(private readonly opts: JwtVerifierOptions) {}

  /**
   * Keys fetched from `jwksUrl` (RemoteKeySet): refreshed every 10 minutes and for an unknown `kid`,
   * at most once per cooldown, the last good set serving through an outage for up to `maxStaleMs`.
   */
  static remote(
    opts: Omit<JwtVerifierOptions, 'keys'> & {
      jwksUrl: string;
      cooldownMs: number;
      maxStaleMs: number;
      onFetch?: RemoteKeySetOptions['onFetch'];
    },
  ): JwtVerifier {
    const keys = new RemoteKeySet({
      url: opts.jwksUrl,
      cooldownMs: opts.cooldownMs,
      maxAgeMs: 10 * 60_000,
      maxStaleMs: opts.maxStaleMs,
      timeoutMs: 5_000,
      onFetch: opts.onFetch,
    });
    return new JwtVerifier({ ...opts, keys: keys.getKey });
  }

  /** The token's claims that matter here; throws a JwtRefusal. */
  async verify(token: string): Promise<VerifiedJwt> {
    let payload: Record<string, unknown> & { exp?: number; iat?: number; iss?: string; sub?: string };
    try {
      ({ payload } = await jwtVerify(token, this.opts.keys, {
        algorithms: JWT_ALGORITHMS,
        issuer: this.opts.issuer,
        audience: this.opts.audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        // A websocket is closed when its token expires: a token must say when.
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    // jose checks `iat` only against a maximum age; a token issued in the future is refused here.
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_S) {
      throw new JwtRefusal('the token is not valid yet (issued in the future)');
    }
    const merchant = payload[this.opts.merchantClaim];
    return {
      merchantId: typeof merchant === 'string' && merchant !== '' ? merchant : undefined,
      scopes: scopesOf(payload),
      issuer: payload.iss,
      subject: payload.sub,
      acceptedUntil: ((payload.exp ?? 0) + CLOCK_TOLERANCE_S) * 1000,
    };
  }
}

/** Three base64url segments: the compact form of a signed JWT (shared tokens are opaque strings). */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}
