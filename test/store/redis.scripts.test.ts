import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { LuaScript } from '../../src/store/redis.scripts';
import { describeRedis, withRedis } from '../support/redis';

describeRedis('LuaScript', () => {
  it('sends the script whole only when the server does not know it yet', async () => {
    // A script no server has seen: its first run must fall back from EVALSHA to EVAL.
    const script = new LuaScript(`-- ${randomUUID()}\nreturn ARGV[1] .. KEYS[1]`);
    await withRedis(async (client) => {
      await client.ping();
      const sent = jest.spyOn(Redis.prototype, 'sendCommand');
      try {
        expect(await script.run(client, ['k'], ['v'])).toBe('vk');
        expect(await script.run(client, ['k'], ['w'])).toBe('wk');
        expect(sent.mock.calls.map(([command]) => command.name)).toEqual(['evalsha', 'eval', 'evalsha']);
      } finally {
        sent.mockRestore();
      }
    });
  });
});
