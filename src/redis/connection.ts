/**
 * The connection to the Redis-protocol server (Redis, Valkey) that Node instances share state
 * through (`REDIS_URL`). Commands fail fast while it is unreachable (no offline queue, no resend after
 * a reconnect: a lock taken twice is worse than a 503), and the client reconnects by itself.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { StoreCondition } from '../payments/server/readiness.ts';

/** Every key this service writes starts with this. */
export const KEY_PREFIX = 'website-checks:';
/** One command may take this long before it counts as failed. */
export const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;
/** Reconnect attempts back off to this interval and go on for as long as the process runs. */
const MAX_RECONNECT_DELAY_MS = 1_000;
/**
 * How often a small write tells a server that takes writes from one that refuses them (full under
 * `noeviction`) or does not answer (paused, stalled), each of which answers every paid call 503;
 * the probe key lives a few probes long.
 */
const PROBE_EVERY_MS = 500;
const PROBE_TTL_MS = 5_000;
/** A write unanswered for this long counts as a stalled server. */
export const STALL_MS = 1_000;

export type Script = (redis: Redis, keys: string[], ...args: (string | number)[]) => Promise<unknown>;

/**
 * A Lua script run atomically on the server, sent by its SHA-1 (`EVALSHA`) and in full only when
 * the server does not have it yet (after its start or restart).
 */
export function luaScript(lua: string): Script {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis, keys, ...args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}

/** Deletes KEYS[1] if it still holds the token ARGV[1]: a lease is ended only by its holder. */
export const releaseIfHeld = luaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/** Extends KEYS[1]'s lease to ARGV[2] ms if it still holds the token ARGV[1]. */
export const renewIfHeld = luaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`,
);

/**
 * The only `maxmemory-policy` under which a full Redis drops nothing it was given. Payment locks,
 * lost results and settler nonces all carry TTLs, so every `volatile-*` policy may evict them as
 * surely as the `allkeys-*` ones: a lock evicted lets a copy of a signature run twice.
 */
export const SAFE_EVICTION_POLICY = 'noeviction';

/** The one line that refuses a Redis whose eviction policy could drop payment state. */
export function evictionRefusal(policy: string): string {
  return `REDIS_URL: the server's maxmemory-policy is ${policy}, which can evict payment locks, lost results and settler nonces under memory pressure; set maxmemory-policy ${SAFE_EVICTION_POLICY} (see docs/fleet.md)`;
}

/** The server's `maxmemory-policy` (from `INFO memory`, which managed servers answer), or null when it does not say. */
export async function evictionPolicy(redis: Redis): Promise<string | null> {
  const info = await redis.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

export interface SharedStore {
  redis: Redis;
  /** True while commands can be sent and the server keeps what it is given (`SAFE_EVICTION_POLICY`). */
  reachable(): boolean;
  /** `reachable()`, and whether the server takes writes and answers them in time. */
  condition(): StoreCondition;
  close(): Promise<void>;
  /**
   * Why this server must not be used, read once it is reachable (within the connect timeout):
   * `evictionRefusal` for an eviction policy that could drop payment state; null when it is fine or
   * cannot be reached yet (paid calls then wait for it, as for any outage).
   */
  refusal(): Promise<string | null>;
}

/** Connects to `url`; an outage is logged once when it begins and once when it ends. */
export function connectSharedStore(url: URL, logger: Logger): SharedStore {
  const redis = new Redis(url.href, {
    keyPrefix: KEY_PREFIX,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Commands of concurrent requests go out in one write.
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
  });
  let down = false;
  // Without a listener ioredis prints every connection error to the console.
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    // The message names the host and port at most; the URL (it may carry a password) is never logged.
    logger.error(
      { err: error },
      'shared store (REDIS_URL) unreachable; paid calls answer 503 until it is back',
    );
  });
  // Read again at every (re)connection: the server behind the URL may have been replaced.
  let keepsPaymentState = false;
  const judgePolicy = () =>
    evictionPolicy(redis).then(
      (policy) => {
        keepsPaymentState = policy === null || policy === SAFE_EVICTION_POLICY;
        if (!keepsPaymentState) logger.error(evictionRefusal(policy as string));
      },
      // Unread (a slow server): asked again shortly while the connection stands.
      () => void setTimeout(() => redis.status === 'ready' && judgePolicy(), MAX_RECONNECT_DELAY_MS).unref(),
    );
  redis.on('ready', () => {
    keepsPaymentState = false;
    void judgePolicy();
    if (!down) return;
    down = false;
    logger.info('shared store (REDIS_URL) reachable again');
  });
  redis.on('close', () => (keepsPaymentState = false));
  const reachable = () => redis.status === 'ready' && keepsPaymentState;
  const probe = writeProbe(redis);
  return {
    redis,
    reachable,
    condition: () => (reachable() ? probe.condition() : 'unreachable'),
    async refusal() {
      if (redis.status !== 'ready') {
        const ready = new Promise<void>((resolve) => redis.once('ready', resolve));
        const waited = await Promise.race([
          ready.then(() => true),
          sleep(CONNECT_TIMEOUT_MS).then(() => false),
        ]);
        if (!waited) return null;
      }
      const policy = await evictionPolicy(redis).catch(() => null);
      return policy === null || policy === SAFE_EVICTION_POLICY ? null : evictionRefusal(policy);
    },
    async close() {
      probe.stop();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/**
 * Writes a key of this connection's own every `PROBE_EVERY_MS` while connected, one write at a
 * time, and judges the server by the last answer: refused for memory, unanswered in time, or taken.
 */
function writeProbe(redis: Redis): { condition(): StoreCondition; stop(): void } {
  const key = `probe:${randomUUID()}`;
  let since: number | undefined;
  let last: StoreCondition = 'reachable';
  const timer = setInterval(() => {
    if (redis.status !== 'ready' || since !== undefined) return;
    since = Date.now();
    redis
      .set(key, '1', 'PX', PROBE_TTL_MS)
      .then(
        () => (last = 'reachable'),
        (error: unknown) => {
          // A refusal other than for memory (the connection dropped) shows as unreachable.
          if (error instanceof Error && error.message.startsWith('OOM')) last = 'refusing_writes';
          else if (error instanceof Error && /timed out/i.test(error.message)) last = 'stalled';
        },
      )
      .finally(() => (since = undefined));
  }, PROBE_EVERY_MS);
  timer.unref();
  return {
    condition: () => (since !== undefined && Date.now() - since >= STALL_MS ? 'stalled' : last),
    stop: () => clearInterval(timer),
  };
}
