import { createLocalJWKSet, errors, JSONWebKeySet, JWTVerifyGetKey } from 'jose';

/** The identity provider's key set could not be had: the server's fault, never the token's. */
export class KeySetUnavailable extends Error {
  constructor(message = "the identity provider's key set cannot be fetched right now") {
    super(message);
    this.name = 'KeySetUnavailable';
  }
}

export interface RemoteKeySetOptions {
  url: string;
  /** Least time between two fetches, whether the last one worked or not. */
  cooldownMs: number;
  /** A set older than this is fetched again before use (the old one serves if that fails). */
  maxAgeMs: number;
  /** How long the last good set keeps serving while fetches fail; after that, tokens cannot be checked. */
  maxStaleMs: number;
  timeoutMs: number;
  /** Told of every fetch and how it went (logs). */
  onFetch?: (ok: boolean, reason?: string) => void;
  now?: () => number;
}

/** A key set bigger than this is not one. */
const MAX_BODY_BYTES = 512 * 1024;

interface GoodSet {
  getKey: ReturnType<typeof createLocalJWKSet>;
  fetchedAt: number;
}

/**
 * The identity provider's key set, fetched over HTTP: one fetch at a time that every waiting
 * request shares, at most one per cooldown whatever its outcome (so no token, good or bad, can make
 * the gateway hammer the provider), and the last good set serving through an outage for up to
 * maxStaleMs. jose's createRemoteJWKSet applies its cooldown only after successful fetches and
 * drops its cache with age, hence this.
 */
export class RemoteKeySet {
  private good?: GoodSet;
  private inFlight?: Promise<void>;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private lastFetchFailed = false;
  private fetchCount = 0;
  private readonly now: () => number;

  constructor(private readonly opts: RemoteKeySetOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Fetches made so far. */
  get fetches(): number {
    return this.fetchCount;
  }

  /**
   * jose's key lookup: the key for a token's header, or KeySetUnavailable, or jose's own
   * no-matching-key error (only when the last fetch worked).
   */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.good || this.now() - this.good.fetchedAt >= this.opts.maxAgeMs) await this.refresh();
    const usable = this.usable();
    try {
      return await usable.getKey(header, token);
    } catch (error) {
      // An unknown kid may be a rotation: look again, at most once per cooldown.
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      await this.refresh();
    }
    try {
      return await this.usable().getKey(header, token);
    } catch (error) {
      // The set cannot be fetched: the key may be one published since the last good set, so the token cannot be judged.
      if (error instanceof errors.JWKSNoMatchingKey && this.lastFetchFailed) throw new KeySetUnavailable();
      throw error;
    }
  };

  private usable(): GoodSet {
    if (!this.good || this.now() - this.good.fetchedAt > this.opts.maxStaleMs) throw new KeySetUnavailable();
    return this.good;
  }

  /** Fetches unless one is running (then shares it) or the cooldown since the last attempt has not passed. Never throws. */
  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.now() - this.lastAttemptAt < this.opts.cooldownMs) return Promise.resolve();
    this.lastAttemptAt = this.now();
    this.fetchCount += 1;
    this.inFlight = this.fetch()
      .then(
        (getKey) => {
          this.good = { getKey, fetchedAt: this.now() };
          this.lastFetchFailed = false;
          this.opts.onFetch?.(true);
        },
        (error: unknown) => {
          this.lastFetchFailed = true;
          this.opts.onFetch?.(false, error instanceof Error ? error.message : String(error));
        },
      )
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async fetch(): Promise<GoodSet['getKey']> {
    const res = await fetch(this.opts.url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.opts.timeoutMs),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`key set answered ${res.status}`);
    if (text.length > MAX_BODY_BYTES) throw new Error('key set answer too large');
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null || !Array.isArray((body as { keys?: unknown }).keys)) {
      throw new Error('key set answer has no "keys" array');
    }
    // createLocalJWKSet checks the shape of each key; a set it refuses is a bad body.
    return createLocalJWKSet(body as JSONWebKeySet);
  }
}
