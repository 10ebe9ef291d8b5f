import { Cluster, Redis } from 'ioredis';

/*
 * Lua scripts registered with ioredis `defineCommand`, which runs EVALSHA and falls back to EVAL
 * itself when a server does not know a script yet (a fresh, restarted or flushed Redis).
 *
 * The record scripts take KEYS[1] = the record, KEYS[2] = its merchant's due index, KEYS[3] = its
 * merchant's history index; all carry the merchant's hash tag, so in a Redis Cluster they live in
 * one slot. A record and its index entries change in one script, so no reader sees one without the other. Writes take
 * ARGV[1] = the record's JSON, ARGV[2] = its TTL in seconds, ARGV[3] = nextCheckAt in ms or ''.
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

const definitions = {
  /**
   * Returns the stored JSON when there is one (nothing written), else nil. A new record enters its
   * merchant's history at ARGV[4] (ms) under ARGV[5] (its referenceId), a place it keeps for life.
   */
  pgwInsertIfAbsent: {
    numberOfKeys: 3,
    lua: `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('ZADD', KEYS[3], 'NX', ARGV[4], ARGV[5])
${write}
return false
`,
  },
  /**
   * Compare-and-set: writes only while the stored JSON is still ARGV[4], the one the change was
   * computed from. Returns 1 when written, else what is stored now (nil when nothing is).
   */
  pgwReplaceIf: {
    numberOfKeys: 3,
    lua: `
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[4] then return current end
${write}
return 1
`,
  },
  /** Compare-and-delete on ARGV[1], the JSON as read, ARGV[2] its referenceId; returns 1 when deleted, else what is stored now. */
  pgwRemoveIf: {
    numberOfKeys: 3,
    lua: `
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[1] then return current end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
`,
  },
  /**
   * KEYS[1] = a due index, then records of the same merchant found expired: drops their entries,
   * checking again here so that a record stored anew since keeps its entry. The number of keys
   * comes first in the call, as it varies.
   */
  pgwForgetExpired: {
    lua: `
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('ZREM', KEYS[1], KEYS[i]) end
end
return false
`,
  },
  /**
   * KEYS[1] = a merchant's history index, KEYS[2..] = its records found expired, ARGV = their
   * referenceIds: drops their entries, checking again here so a record stored anew keeps its entry.
   */
  pgwForgetExpiredHistory: {
    lua: `
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('ZREM', KEYS[1], ARGV[i - 1]) end
end
return false
`,
  },
} as const;

/** A Lua reply: nil arrives as null, a number as a number, a bulk string as a string. */
type Reply = Promise<string | number | null>;

export interface ScriptCommands {
  pgwInsertIfAbsent(record: string, due: string, history: string, json: string, ttl: string, score: string, at: string, ref: string): Reply;
  pgwReplaceIf(record: string, due: string, history: string, json: string, ttl: string, score: string, expected: string): Reply;
  pgwRemoveIf(record: string, due: string, history: string, expected: string, ref: string): Reply;
  pgwForgetExpired(numberOfKeys: number, due: string, ...records: string[]): Reply;
  /** numberOfKeys, the history index, the records, then their referenceIds. */
  pgwForgetExpiredHistory(numberOfKeys: number, ...keysThenIds: string[]): Reply;
}

export type ScriptedClient<C extends Redis | Cluster> = C & ScriptCommands;

/** Registers the scripts on a client (plain or cluster); ioredis then sends them as needed. */
export function withScripts<C extends Redis | Cluster>(client: C): ScriptedClient<C> {
  for (const [name, definition] of Object.entries(definitions)) client.defineCommand(name, definition);
  return client as ScriptedClient<C>;
}
