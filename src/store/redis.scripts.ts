import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';

/** A Lua script run by EVALSHA, sent whole only the first time a server does not know it. */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: Redis, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/*
 * The record scripts take KEYS[1] = the record, KEYS[2] = the due index, KEYS[3] = the merchant's
 * history index. A record and its index entries change in one script, so no reader sees one
 * without the other. Writes take ARGV[1] = the record's JSON, ARGV[2] = its TTL in seconds,
 * ARGV[3] = nextCheckAt in ms or ''.
 */
const write = `
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], KEYS[1])
else
  redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
end
-- The indexes outlive every record written, and go once all have expired.
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[2])
`;

/**
 * Returns the stored JSON when there is one (nothing written), else nil. A new record enters its
 * merchant's history at ARGV[4] (ms) under ARGV[5] (its referenceId), a place it keeps for life.
 */
export const insertIfAbsent = new LuaScript(`
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('ZADD', KEYS[3], 'NX', ARGV[4], ARGV[5])
${write}
return false
`);

/**
 * Compare-and-set: writes only while the stored JSON is still ARGV[4], the one the change was computed from.
 * Returns 1 when written, else what is stored now (nil when nothing is).
 */
export const replaceIf = new LuaScript(`
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[4] then return current end
${write}
return 1
`);

/** Compare-and-delete on ARGV[1], the JSON as read, ARGV[2] its referenceId; returns 1 when deleted, else what is stored now. */
export const removeIf = new LuaScript(`
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[1] then return current end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
`);

/**
 * KEYS[1] = a merchant's history index, KEYS[2..] = records found expired, ARGV = their
 * referenceIds: drops their entries, checking again here so a record stored anew keeps its entry.
 */
export const forgetExpiredHistory = new LuaScript(`
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('ZREM', KEYS[1], ARGV[i - 1]) end
end
return false
`);

/**
 * KEYS[1] = the due index, then records found expired: drops their entries, checking again here
 * so that a record stored anew since keeps its entry.
 */
export const forgetExpired = new LuaScript(`
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('ZREM', KEYS[1], KEYS[i]) end
end
return false
`);
