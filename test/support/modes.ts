import { describeRedis, requireRedisUrl, uniquePrefix } from './redis';

/**
 * The same tests against the memory store and (when REDIS_URL is set) the Redis store: `env()`
 * gives the gateway settings of the mode, under a key prefix of its own.
 */
export function describeEachStore(name: string, fn: (env: () => Record<string, string>) => void): void {
  describe(`${name} (memory store)`, () => fn(() => ({})));
  describeRedis(`${name} (Redis store)`, () => {
    const keys = uniquePrefix();
    afterAll(() => keys.cleanup());
    fn(() => ({ REDIS_URL: requireRedisUrl(), REDIS_KEY_PREFIX: keys.prefix }));
  });
}
