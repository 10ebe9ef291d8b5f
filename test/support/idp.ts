import { exportJWK, exportSPKI, generateKeyPair, JWK, JWTPayload, SignJWT } from 'jose';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { knownSecrets } from './stack';

interface Key {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

export interface TokenOptions {
  claims?: JWTPayload;
  kid?: string;
  /** Seconds from now; default 300. */
  expiresIn?: number;
  notBefore?: number;
  issuer?: string;
  audience?: string;
}

const b64 = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/**
 * A stand-in identity provider: key pairs generated at test time, their public halves served as a
 * JWKS over real HTTP, and tokens signed with them. Every token and private key it makes is
 * registered as a secret, so the leak check fails if one ever shows up in a response or a log line.
 */
export class TestIdp {
  readonly issuer = `https://idp-${randomUUID()}.example/`;
  readonly audience = 'payout-gateway-test';
  private readonly keys: Key[] = [];
  private fetchCount = 0;
  /** While set, the key set answers this status (or a body that is no key set) instead of the keys. */
  private outage?: number | 'garbage';

  private constructor(
    private readonly server: Server,
    readonly jwksUrl: string,
  ) {}

  static async start(): Promise<TestIdp> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const idp = new TestIdp(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`);
    server.on('request', (_req, res) => {
      idp.fetchCount += 1;
      if (typeof idp.outage === 'number')
        return res.writeHead(idp.outage, { 'content-type': 'text/plain' }).end('down');
      if (idp.outage === 'garbage')
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": "none"}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: idp.keys.map((k) => k.publicJwk) }));
    });
    await idp.addKey('RS256');
    await idp.addKey('ES256');
    return idp;
  }

  /** Publishes a new key (a rotation) and returns its kid. */
  async addKey(alg: 'RS256' | 'ES256' | 'EdDSA'): Promise<string> {
    const kid = `${alg.toLowerCase()}-${randomUUID()}`;
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    if (privateJwk.d) knownSecrets.add(privateJwk.d);
    this.keys.push({
      kid,
      alg,
      privateKey,
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
      publicPem: await exportSPKI(publicKey),
    });
    return kid;
  }

  /** Makes the key set fail (an HTTP status, or a 200 whose body is no key set); undefined: serve the keys again. */
  fail(outage: number | 'garbage' | undefined): void {
    this.outage = outage;
  }

  /** Key set fetches the gateway made. */
  get fetches(): number {
    return this.fetchCount;
  }

  kids(): string[] {
    return this.keys.map((k) => k.kid);
  }

  private key(kid: string | undefined): Key {
    const key = kid === undefined ? this.keys[0] : this.keys.find((k) => k.kid === kid);
    if (!key) throw new Error(`no key ${kid}`);
    return key;
  }

  private payload(opts: TokenOptions): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: opts.issuer ?? this.issuer,
      aud: opts.audience ?? this.audience,
      sub: `user-${randomUUID()}`,
      iat: now,
      exp: now + (opts.expiresIn ?? 300),
      ...(opts.notBefore !== undefined && { nbf: now + opts.notBefore }),
      ...opts.claims,
    };
  }

  private remember(token: string): string {
    knownSecrets.add(token);
    return token;
  }

  /** A properly signed token; `kid` picks the key (default the first). */
  async sign(opts: TokenOptions = {}): Promise<string> {
    const key = this.key(opts.kid);
    const token = await new SignJWT(this.payload(opts))
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
    return this.remember(token);
  }

  /** Signed by a key this provider never published. */
  async signWithUnknownKey(opts: TokenOptions = {}): Promise<string> {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT(this.payload(opts))
      .setProtectedHeader({ alg: 'ES256', kid: `unknown-${randomUUID()}`, typ: 'JWT' })
      .sign(privateKey);
    return this.remember(token);
  }

  /** `alg: none`: no signature at all. */
  unsigned(opts: TokenOptions = {}): string {
    return this.remember(`${b64({ alg: 'none', typ: 'JWT', kid: this.keys[0].kid })}.${b64(this.payload(opts))}.`);
  }

  /** The classic confusion attack: HS256 with the RSA public key (which anyone can read) as the secret. */
  hs256WithPublicKey(opts: TokenOptions = {}): string {
    const rsa = this.keys.find((k) => k.alg === 'RS256');
    if (!rsa) throw new Error('no RSA key');
    const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: rsa.kid })}.${b64(this.payload(opts))}`;
    return this.remember(`${input}.${createHmac('sha256', rsa.publicPem).update(input).digest('base64url')}`);
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}
