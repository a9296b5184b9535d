/**
 * The connection to the Redis-protocol server (Redis, Valkey) that Node instances share state
 * through (`REDIS_URL`). Commands fail fast while it is unreachable (no offline queue, no resend after
 * a reconnect: a lock taken twice is worse than a 503), and the client reconnects by itself.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Every key this service writes starts with this. */
export const KEY_PREFIX = 'website-checks:';
/** One command may take this long before it counts as failed. */
export const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;
/** Reconnect attempts back off to this interval and go on for as long as the process runs. */
const MAX_RECONNECT_DELAY_MS = 1_000;

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

export interface SharedStore {
  redis: Redis;
  /** True while commands can be sent. */
  reachable(): boolean;
  close(): Promise<void>;
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
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('shared store (REDIS_URL) reachable again');
  });
  return {
    redis,
    reachable: () => redis.status === 'ready',
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
