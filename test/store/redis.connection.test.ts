import { closeRedis, connectRedis } from '../../src/redis/redis.connection';
import { describeRedis, requireRedisUrl, uniquePrefix } from '../support/redis';

describeRedis('the subscriber connection', () => {
  const { prefix, cleanup } = uniquePrefix();
  afterAll(() => cleanup());

  it('keeps a SUBSCRIBE sent while the connection is still getting ready', async () => {
    const errors: Error[] = [];
    const subscriber = connectRedis(requireRedisUrl(), 'subscriber', (e) => errors.push(e));
    const publisher = connectRedis(requireRedisUrl(), 'publisher');
    try {
      const received = new Promise<string>((resolve) =>
        subscriber.on('message', (_channel: string, message: string) => resolve(message)),
      );
      // The gateway's first watcher can subscribe at exactly this moment, right after start.
      await new Promise((resolve) => subscriber.once('connect', resolve));
      void subscriber.subscribe(`${prefix}early`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await publisher.publish(`${prefix}early`, 'hello');
      expect(await received).toBe('hello');
      expect(errors).toEqual([]);
    } finally {
      await closeRedis(subscriber);
      await closeRedis(publisher);
    }
  });
});
