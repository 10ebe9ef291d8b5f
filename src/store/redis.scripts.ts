import { Cluster, Redis } from 'ioredis';

/*
 * Lua scripts registered with ioredis `defineCommand`, which runs EVALSHA and falls back to EVAL
 * itself when a server does not know a script yet (a fresh, restarted or flushed Redis).
 *
 * The record scripts take KEYS[1] = the record, KEYS[2] = its merchant's due index, KEYS[3] = its
 * merchant's history index; all carry the merchant's hash tag, so in a Redis Cluster they live in
 * one slot. A record and its index entries change in one script, so no reader sees one without the other. Writes take
 * ARGV[1] = the record's JSON, ARGV[2] = its TTL in seconds, ARGV[3] = nextCheckAt in ms or ''.
 *
 * Every script that writes a record also takes, last, the merchant's change stream (the last key)
 * and three arguments (the last three): '1' when the write is a change clients see, how long the
 * stream keeps a change (ms), and how many it keeps at most. Such a write enters the stream in the
 * same script, so the stream's order is the store's (`disbursementEvents`).
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
 * The change stream drops what is older than the retention (by entry id, which is the server's
 * clock), is trimmed to about the most it keeps, and expires with its last change.
 */
const logChange = `
local logIt, keepMs, keepAtMost = ARGV[#ARGV - 2], ARGV[#ARGV - 1], ARGV[#ARGV]
if logIt == '1' then
  local now = redis.call('TIME')
  local oldest = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(keepMs)
  redis.call('XADD', KEYS[#KEYS], 'MINID', '~', string.format('%d', oldest), '*', 'r', ARGV[1])
  redis.call('XTRIM', KEYS[#KEYS], 'MAXLEN', '~', keepAtMost)
  redis.call('PEXPIRE', KEYS[#KEYS], keepMs)
end
`;

/** An insert writes only where nothing is stored; what is stored is returned as it is. */
const absentOrReturn = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
`;

/** A compare-and-set goes on only while the stored JSON is still the one the change was computed from. */
const unchangedOrReturn = (expected: string) => `
local current = redis.call('GET', KEYS[1])
if current ~= ${expected} then return current end
`;

/** A new record enters its merchant's history at ARGV[4] (ms) under ARGV[5] (its referenceId), a place it keeps for life. */
const enterHistory = `redis.call('ZADD', KEYS[3], 'NX', ARGV[4], ARGV[5])`;

/** A record goes with its entries in both indexes; `referenceId` is its history member. */
const forget = (referenceId: string) => `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZREM', KEYS[3], ${referenceId})
`;

/** Gives `amount` back to the counters KEYS[4] and KEYS[5], where they still exist. */
const release = (amount: string) => `
for i = 4, 5 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECRBY', KEYS[i], ${amount}) end
end
`;

const definitions = {
  /** Returns the stored JSON when there is one (nothing written), else nil. */
  pgwInsertIfAbsent: {
    numberOfKeys: 4,
    lua: `
${absentOrReturn}
${enterHistory}
${write}
${logChange}
return false
`,
  },
  /**
   * Compare-and-set: writes only while the stored JSON is still ARGV[4], the one the change was
   * computed from. Returns 1 when written, else what is stored now (nil when nothing is).
   */
  pgwReplaceIf: {
    numberOfKeys: 4,
    lua: `
${unchangedOrReturn('ARGV[4]')}
${write}
${logChange}
return 1
`,
  },
  /**
   * pgwInsertIfAbsent with the daily-limit check and reservation in the same step. KEYS[4] = the
   * merchant's counter for the day and currency, KEYS[5] = the actor's (same hash tag); ARGV[6] = the
   * amount in minor units, ARGV[7] / ARGV[8] = the merchant's / actor's cap ('' for none), ARGV[9] =
   * the counters' TTL. Returns the stored JSON when there is one, {limit, remaining} when a cap
   * refuses (nothing written), else nil.
   */
  pgwInsertReserving: {
    numberOfKeys: 6,
    lua: `
${absentOrReturn}
local minor = tonumber(ARGV[6])
local merchant = tonumber(redis.call('GET', KEYS[4]) or '0')
local actor = tonumber(redis.call('GET', KEYS[5]) or '0')
if ARGV[7] ~= '' and merchant + minor > tonumber(ARGV[7]) then return {'dailyLimit', math.max(0, tonumber(ARGV[7]) - merchant)} end
if ARGV[8] ~= '' and actor + minor > tonumber(ARGV[8]) then return {'userDailyLimit', math.max(0, tonumber(ARGV[8]) - actor)} end
redis.call('INCRBY', KEYS[4], ARGV[6])
redis.call('EXPIRE', KEYS[4], ARGV[9])
redis.call('INCRBY', KEYS[5], ARGV[6])
redis.call('EXPIRE', KEYS[5], ARGV[9])
${enterHistory}
${write}
${logChange}
return false
`,
  },
  /**
   * pgwReplaceIf that also gives a reservation back: KEYS[4], KEYS[5] its counters, ARGV[5] the
   * amount in minor units. A counter already expired stays gone (its day is long past).
   */
  pgwReplaceReleasing: {
    numberOfKeys: 6,
    lua: `
${unchangedOrReturn('ARGV[4]')}
${write}
${release('ARGV[5]')}
${logChange}
return 1
`,
  },
  /** pgwRemoveIf that also gives a reservation back: KEYS[4], KEYS[5] its counters, ARGV[3] the amount in minor units. */
  pgwRemoveReleasing: {
    numberOfKeys: 5,
    lua: `
${unchangedOrReturn('ARGV[1]')}
${forget('ARGV[2]')}
${release('ARGV[3]')}
return 1
`,
  },
  /** Compare-and-delete on ARGV[1], the JSON as read, ARGV[2] its referenceId; returns 1 when deleted, else what is stored now. */
  pgwRemoveIf: {
    numberOfKeys: 3,
    lua: `
${unchangedOrReturn('ARGV[1]')}
${forget('ARGV[2]')}
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

/** The keys every record script takes first: the record, its merchant's due index and history index. */
export type RecordKeys = [record: string, due: string, history: string];
/** Five keys: the record's three, then the merchant's and the actor's day counter. */
type ReservingKeys = [...RecordKeys, merchantDay: string, actorDay: string];
/** The first arguments of a writing script: the record's JSON, its TTL and its due score. */
export type WriteArgs = [json: string, ttl: string, score: string];
/** The change stream's key, last among the keys, and its three arguments, last among the arguments. */
export type ChangeLog = [log: string, keepMs: string, keepAtMost: string];

export interface ScriptCommands {
  pgwInsertIfAbsent(
    ...args: [...RecordKeys, stream: string, ...WriteArgs, at: string, ref: string, ...ChangeLog]
  ): Reply;
  pgwReplaceIf(...args: [...RecordKeys, stream: string, ...WriteArgs, expected: string, ...ChangeLog]): Reply;
  pgwRemoveIf(...args: [...RecordKeys, expected: string, ref: string]): Reply;
  pgwInsertReserving(
    ...args: [
      ...ReservingKeys,
      stream: string,
      ...WriteArgs,
      at: string,
      ref: string,
      minor: string,
      caps: string,
      userCap: string,
      counterTtl: string,
      ...ChangeLog,
    ]
  ): Promise<string | [string, number] | null>;
  pgwReplaceReleasing(
    ...args: [...ReservingKeys, stream: string, ...WriteArgs, expected: string, minor: string, ...ChangeLog]
  ): Reply;
  pgwRemoveReleasing(...args: [...ReservingKeys, expected: string, ref: string, minor: string]): Reply;
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
