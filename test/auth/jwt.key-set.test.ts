import { errors, jwtVerify } from 'jose';
import { KeySetUnavailable, RemoteKeySet } from '../../src/auth/jwt.key-set';
import { TestIdp } from '../support/idp';

let idp: TestIdp;
beforeAll(async () => {
  idp = await TestIdp.start();
});
afterAll(() => idp.close());

/** A key set on a clock the test moves. */
function keySet(maxStaleMs: number) {
  let now = 1_000_000;
  const keys = new RemoteKeySet({
    url: idp.jwksUrl,
    cooldownMs: 1000,
    maxAgeMs: 600_000,
    maxStaleMs,
    timeoutMs: 2000,
    now: () => now,
  });
  return { keys, advance: (ms: number) => (now += ms) };
}

const verify = async (keys: RemoteKeySet, token: string) => (await jwtVerify(token, keys.getKey)).payload.sub;

it('keeps verifying known keys with the last good set when it has aged out and the refresh fails, up to the stale limit', async () => {
  const { keys, advance } = keySet(3_600_000);
  const token = await idp.sign();
  expect(await verify(keys, token)).toBeDefined();
  idp.fail(500);
  try {
    // Past the 10-minute age: a refresh is tried, fails, and the old set still serves.
    advance(11 * 60_000);
    const before = keys.fetches;
    expect(await verify(keys, token)).toBeDefined();
    expect(keys.fetches).toBe(before + 1);
    // Within the cooldown, no second fetch.
    expect(await verify(keys, token)).toBeDefined();
    expect(keys.fetches).toBe(before + 1);
    // Past JWT_JWKS_MAX_STALE_SECONDS: the set is no longer trusted, and the answer says the keys are unavailable.
    advance(3_600_000);
    await expect(verify(keys, token)).rejects.toBeInstanceOf(KeySetUnavailable);
  } finally {
    idp.fail(undefined);
  }
  // Once the key set answers again, a fetch after the cooldown restores it.
  advance(2000);
  expect(await verify(keys, token)).toBeDefined();
});

it('shares one fetch among concurrent requests, and refuses with KeySetUnavailable when there never was a good set', async () => {
  idp.fail('garbage');
  try {
    const { keys } = keySet(86_400_000);
    const token = await idp.sign();
    const answers = await Promise.allSettled(Array.from({ length: 20 }, () => verify(keys, token)));
    expect(answers.every((a) => a.status === 'rejected' && a.reason instanceof KeySetUnavailable)).toBe(true);
    expect(keys.fetches).toBe(1);
  } finally {
    idp.fail(undefined);
  }
});

it.each([[500], ['garbage' as const]])(
  'cannot tell an unknown kid from a new key while the key set answers %s, and refuses it once a fetch works again',
  async (outage) => {
    const { keys, advance } = keySet(3_600_000);
    const known = await idp.sign();
    const unknown = await idp.signWithUnknownKey();
    expect(await verify(keys, known)).toBeDefined();
    // The set was just fetched fine: the key is not the identity provider's.
    await expect(verify(keys, unknown)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    idp.fail(outage);
    try {
      advance(2000);
      // The fetch the unknown kid asks for fails: the key may have been published since the last good set.
      await expect(verify(keys, unknown)).rejects.toBeInstanceOf(KeySetUnavailable);
      // Within the cooldown after that failure nothing is fetched, and the kid still cannot be judged.
      const fetched = keys.fetches;
      await expect(verify(keys, unknown)).rejects.toBeInstanceOf(KeySetUnavailable);
      expect(keys.fetches).toBe(fetched);
      expect(await verify(keys, known)).toBeDefined();
    } finally {
      idp.fail(undefined);
    }
    advance(2000);
    await expect(verify(keys, unknown)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
  },
);
