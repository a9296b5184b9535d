/**
 * The watch store every Node instance with `REDIS_URL` shares: one store and one schedule for the
 * fleet. Each operation of `WatchStore` is one Lua script, so it is atomic on the server whichever
 * instance sends it; nothing here has a TTL (watches, events and pending deliveries are never
 * evicted, even under a `volatile-*` eviction policy).
 *
 *   watches             hash   id → the record (JSON)
 *   watches:version     hash   id → its version (optimistic concurrency)
 *   watches:status      hash   id → its status
 *   watches:count       hash   status → watches in it
 *   watches:gone        hash   id → 1 once its webhook answered 410 (merged into the record read)
 *   watches:due         zset   active watch ids, scored by when they may next be claimed
 *   watches:pending     zset   pending watch ids, scored by when they were opened (the sweep's)
 *   watch:{id}:events   zset   its latest events (JSON), scored by sequence number
 *   watch:{id}:attempts list   its latest delivery attempts (JSON)
 *   watch:{id}:pending  set    its pending deliveries' event ids
 *   deliveries          hash   event id → the pending delivery (JSON)
 *   deliveries:due      zset   event ids, scored by when they may next be claimed
 *   deliveries:busy     hash   watch id → the end of the lease of its delivery in flight
 *
 * A claim is a lease: it moves the claimed member's score to the lease's end, so the member is
 * hidden from other claims until then, and is claimable again if its holder dies (`kill -9`)
 * before committing. A commit or an attempt's record puts the score back to the next due time.
 * A watch has one delivery in flight at a time: a claim passes over (and scores at that lease's
 * end) the other deliveries of a watch whose delivery is leased; recording the attempt ends the
 * lease and puts them back at their due times.
 */
import type { Redis } from 'ioredis';
import type { DeliveryAttempt, DeliveryVerdict, PendingDelivery } from '../watches/delivery.ts';
import type { WatchEvent, WatchRecord } from '../watches/model.ts';
import { HISTORY_LIMIT, type WatchCommit, type WatchStore } from '../watches/ports.ts';
import { luaScript, type SharedStore } from './connection.ts';

const WATCHES = 'watches';
const VERSIONS = 'watches:version';
const STATUSES = 'watches:status';
const COUNTS = 'watches:count';
const DUE = 'watches:due';
const GONE = 'watches:gone';
const PENDING = 'watches:pending';
const DELIVERIES = 'deliveries';
const DELIVERIES_DUE = 'deliveries:due';
const DELIVERIES_BUSY = 'deliveries:busy';
const eventsKey = (id: string) => `watch:${id}:events`;
const attemptsKey = (id: string) => `watch:${id}:attempts`;
const pendingKey = (id: string) => `watch:${id}:pending`;

/** KEYS: watches, versions, statuses, counts, pending; ARGV: id, record, version, createdAt. The stored record. */
const insertWatch = luaScript(`local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then return existing end
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], 'pending')
redis.call('HINCRBY', KEYS[4], 'pending', 1)
return ARGV[2]`);

/** KEYS: watches, versions, statuses, counts, pending; ARGV: id. 1 when a pending watch was removed. */
const discardPendingWatch = luaScript(`if redis.call('HGET', KEYS[3], ARGV[1]) ~= 'pending' then return 0 end
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HINCRBY', KEYS[4], 'pending', -1)
return 1`);

/**
 * KEYS: watches, versions, statuses, counts, due, events, pending, deliveries, deliveries:due, gone,
 * watches:pending, deliveries:busy;
 * ARGV: id, expected version, record, version, status, dueAt, history limit, event count, drop
 * ('1': the watch's pending deliveries are removed first), then (seq, event JSON) per event, then
 * (event id, delivery JSON, dueAt) per delivery, enqueued only while the watch's webhook is not
 * gone. 1, or 0 when the stored version is not the expected one (nothing written).
 */
const commitWatch = luaScript(`local id = ARGV[1]
local stored = redis.call('HGET', KEYS[2], id)
if (stored or '-1') ~= ARGV[2] then return 0 end
local before = redis.call('HGET', KEYS[3], id)
redis.call('HSET', KEYS[1], id, ARGV[3])
redis.call('HSET', KEYS[2], id, ARGV[4])
redis.call('HSET', KEYS[3], id, ARGV[5])
if before ~= ARGV[5] then
  if before then redis.call('HINCRBY', KEYS[4], before, -1) end
  redis.call('HINCRBY', KEYS[4], ARGV[5], 1)
end
if ARGV[5] == 'active' then redis.call('ZADD', KEYS[5], ARGV[6], id) else redis.call('ZREM', KEYS[5], id) end
if ARGV[5] ~= 'pending' then redis.call('ZREM', KEYS[11], id) end
if ARGV[9] == '1' then
  for _, eventId in ipairs(redis.call('SMEMBERS', KEYS[7])) do
    redis.call('HDEL', KEYS[8], eventId)
    redis.call('ZREM', KEYS[9], eventId)
  end
  redis.call('DEL', KEYS[7])
  redis.call('HDEL', KEYS[12], id)
end
local i = 10
for _ = 1, tonumber(ARGV[8]) do
  redis.call('ZADD', KEYS[6], ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -tonumber(ARGV[7]) - 1)
if redis.call('HEXISTS', KEYS[10], id) == 1 then return 1 end
while i <= #ARGV do
  redis.call('HSET', KEYS[8], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[9], ARGV[i + 2], ARGV[i])
  redis.call('SADD', KEYS[7], ARGV[i])
  i = i + 3
end
return 1`);

/**
 * KEYS: a due zset, the hash of what it schedules; ARGV: now, limit, lease end. Leases up to
 * `limit` members due by `now` until the lease's end; their values (JSON), earliest first.
 */
const claim =
  luaScript(`local ids = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
if #ids == 0 then return {} end
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[3], id) end
local values = redis.call('HMGET', KEYS[2], unpack(ids))
local found = {}
for i, value in ipairs(values) do
  if value then found[#found + 1] = value else redis.call('ZREM', KEYS[1], ids[i]) end
end
return found`);

/**
 * KEYS: deliveries:due, deliveries, deliveries:busy; ARGV: now, limit, lease end, how many due
 * members to look at. Leases up to `limit` due deliveries, one per watch and none of a watch with
 * one leased (those are scored at its lease's end, or this one's); their values (JSON), earliest first.
 */
const claimDeliveries = luaScript(`local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[4]))
local found = {}
local picked = {}
for _, id in ipairs(ids) do
  if #found >= tonumber(ARGV[2]) then break end
  local value = redis.call('HGET', KEYS[2], id)
  if not value then
    redis.call('ZREM', KEYS[1], id)
  else
    local watch = cjson.decode(value).watchId
    local busy = tonumber(redis.call('HGET', KEYS[3], watch) or '0')
    if busy > now then
      redis.call('ZADD', KEYS[1], busy, id)
    elseif picked[watch] then
      redis.call('ZADD', KEYS[1], ARGV[3], id)
    else
      picked[watch] = true
      redis.call('ZADD', KEYS[1], ARGV[3], id)
      redis.call('HSET', KEYS[3], watch, ARGV[3])
      found[#found + 1] = value
    end
  end
end
return found`);

/**
 * KEYS: deliveries, deliveries:due, the watch's pending set, its attempts, gone, deliveries:busy;
 * ARGV: event id, attempt JSON, history limit, verdict kind, the delivery as it stands after
 * (JSON; retry only), its dueAt (retry only), the watch id. Ends the watch's lease, putting its
 * other deliveries back at their due times. `gone` removes every pending delivery of the watch and
 * marks its webhook gone.
 */
const recordDeliveryAttempt = luaScript(`redis.call('RPUSH', KEYS[4], ARGV[2])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[3]), -1)
redis.call('HDEL', KEYS[6], ARGV[7])
for _, eventId in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local value = redis.call('HGET', KEYS[1], eventId)
  if value and eventId ~= ARGV[1] then redis.call('ZADD', KEYS[2], cjson.decode(value).dueAt, eventId) end
end
local kind = ARGV[4]
if kind == 'retry' then
  if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[5])
    redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
  end
  return 1
end
local gone = { ARGV[1] }
if kind == 'gone' then
  gone = redis.call('SMEMBERS', KEYS[3])
  redis.call('HSET', KEYS[5], ARGV[7], '1')
end
for _, eventId in ipairs(gone) do
  redis.call('HDEL', KEYS[1], eventId)
  redis.call('ZREM', KEYS[2], eventId)
  redis.call('SREM', KEYS[3], eventId)
end
return 1`);

const STATUS_NAMES = ['pending', 'active', 'ended', 'cancelled'] as const;

/** Due deliveries a claim looks at per one it may take: others of busy watches are passed over. */
const CLAIM_SCAN = 4;

/** A watch's sequence number of `event` (its id ends with it). */
const seqOf = (event: WatchEvent) => Number(event.id.slice(event.id.lastIndexOf('_') + 1));

/** Stored JSON values, parsed. */
const parse = <T>(values: unknown): T[] => (values as string[]).map((value) => JSON.parse(value) as T);

export function redisWatchStore(store: SharedStore): WatchStore {
  const { redis } = store;

  return {
    async insert(watch) {
      const stored = (await insertWatch(
        redis,
        [WATCHES, VERSIONS, STATUSES, COUNTS, PENDING],
        watch.id,
        JSON.stringify(watch),
        watch.version,
        watch.createdAt,
      )) as string;
      return JSON.parse(stored) as WatchRecord;
    },
    async get(id) {
      const record = await redis.hget(WATCHES, id);
      return record === null ? null : ((await withGone(redis, [record]))[0] ?? null);
    },
    async discardPending(id) {
      return (await discardPendingWatch(redis, [WATCHES, VERSIONS, STATUSES, COUNTS, PENDING], id)) === 1;
    },
    async commit(commit) {
      return (await commitTransition(redis, commit)) === 1;
    },
    async claimDue(now, limit, leaseMs) {
      return withGone(redis, (await claim(redis, [DUE, WATCHES], now, limit, now + leaseMs)) as string[]);
    },
    async nextDueAt() {
      return earliestScore(await redis.zrange(DUE, '0', '0', 'WITHSCORES'));
    },
    async events(watchId, afterSeq, limit) {
      return latestEvents(redis, watchId, afterSeq, limit);
    },
    async attempts(watchId, limit) {
      return parse<DeliveryAttempt>(await redis.lrange(attemptsKey(watchId), -limit, -1));
    },
    async claimDeliveries(now, limit, leaseMs) {
      return parse<PendingDelivery>(
        await claimDeliveries(
          redis,
          [DELIVERIES_DUE, DELIVERIES, DELIVERIES_BUSY],
          now,
          limit,
          now + leaseMs,
          limit * CLAIM_SCAN,
        ),
      );
    },
    async nextDeliveryAt() {
      return earliestScore(await redis.zrange(DELIVERIES_DUE, '0', '0', 'WITHSCORES'));
    },
    async recordAttempt(delivery, attempt, verdict) {
      await recordAttemptOf(redis, delivery, attempt, verdict);
    },
    async pendingOpenedBy(openedBy, limit) {
      const ids = await redis.zrange(PENDING, '-inf', String(openedBy), 'BYSCORE', 'LIMIT', 0, limit);
      if (ids.length === 0) return [];
      const records = await redis.hmget(WATCHES, ...ids);
      return withGone(
        redis,
        records.filter((record): record is string => record !== null),
      );
    },
    async countByStatus() {
      const counts = await redis.hmget(COUNTS, ...STATUS_NAMES);
      return Object.fromEntries(STATUS_NAMES.map((status, i) => [status, Number(counts[i] ?? 0)])) as Record<
        (typeof STATUS_NAMES)[number],
        number
      >;
    },
    // The connection is the platform's: `RedisPlatform.close` ends it.
    async close() {},
  };
}

/** A watch's latest `limit` events after `afterSeq`, oldest of them first. */
async function latestEvents(
  redis: Redis,
  watchId: string,
  afterSeq: number,
  limit: number,
): Promise<WatchEvent[]> {
  const newestFirst = await redis.zrange(
    eventsKey(watchId),
    '+inf',
    `(${afterSeq}`,
    'BYSCORE',
    'REV',
    'LIMIT',
    0,
    limit,
  );
  return parse<WatchEvent>(newestFirst).reverse();
}

/** Records as stored, with `webhookGone` set for those whose webhook answered 410 since. */
async function withGone(redis: Redis, records: string[]): Promise<WatchRecord[]> {
  if (records.length === 0) return [];
  const watches = records.map((value) => JSON.parse(value) as WatchRecord);
  const gone = await redis.hmget(GONE, ...watches.map((watch) => watch.id));
  return watches.map((watch, i) => (gone[i] === null ? watch : { ...watch, webhookGone: true }));
}

/** Runs a watch's transition; 1 when the watch was still at `expectedVersion`. */
function commitTransition(
  redis: Redis,
  { watch, expectedVersion, events, deliveries, dropPending }: WatchCommit,
): Promise<unknown> {
  return commitWatch(
    redis,
    [
      WATCHES,
      VERSIONS,
      STATUSES,
      COUNTS,
      DUE,
      eventsKey(watch.id),
      pendingKey(watch.id),
      DELIVERIES,
      DELIVERIES_DUE,
      GONE,
      PENDING,
      DELIVERIES_BUSY,
    ],
    watch.id,
    expectedVersion,
    JSON.stringify(watch),
    watch.version,
    watch.status,
    watch.dueAt,
    HISTORY_LIMIT,
    events.length,
    dropPending ? '1' : '0',
    ...events.flatMap((event) => [seqOf(event), JSON.stringify(event)]),
    ...deliveries.flatMap((delivery) => [delivery.eventId, JSON.stringify(delivery), delivery.dueAt]),
  );
}

/** Records a delivery's attempt and applies its verdict, in one script. */
async function recordAttemptOf(
  redis: Redis,
  delivery: PendingDelivery,
  attempt: DeliveryAttempt,
  verdict: DeliveryVerdict,
): Promise<void> {
  const retry =
    verdict.kind === 'retry'
      ? [
          JSON.stringify({ ...delivery, attempts: delivery.attempts + 1, dueAt: verdict.dueAt }),
          verdict.dueAt,
        ]
      : ['', ''];
  await recordDeliveryAttempt(
    redis,
    [
      DELIVERIES,
      DELIVERIES_DUE,
      pendingKey(delivery.watchId),
      attemptsKey(delivery.watchId),
      GONE,
      DELIVERIES_BUSY,
    ],
    delivery.eventId,
    JSON.stringify(attempt),
    HISTORY_LIMIT,
    verdict.kind,
    ...retry,
    delivery.watchId,
  );
}

function earliestScore(withScores: string[]): number | null {
  return withScores.length < 2 ? null : Number(withScores[1]);
}
