/** Upstream answers every instance with `REDIS_URL` reuses (`SharedAnswers`), under `answer:`. */
import type { SharedAnswers } from '../sources/cache.ts';
import { luaScript, type SharedStore } from './connection.ts';

/**
 * An answer longer than this (bytes of JSON) stays in its instance: one key must stay small, and
 * nothing longer is read back.
 */
export const MAX_SHARED_ANSWER_BYTES = 1_000_000;
/** Most unreadable keys remembered, so each is logged once (the next good answer overwrites it). */
const UNREADABLE_LOGGED_MAX = 1_000;
/** What `getWithin` answers for a value longer than its limit. */
const TOO_LONG = -1;

/**
 * KEYS[1]'s value when it is at most ARGV[1] bytes long, `TOO_LONG` when longer: an entry no
 * instance writes (a tampered key, another program's) never crosses the wire nor holds the event
 * loop while it is decoded and parsed.
 */
const getWithin = luaScript(
  `if redis.call('STRLEN', KEYS[1]) > tonumber(ARGV[1]) then return ${TOO_LONG} end return redis.call('GET', KEYS[1])`,
);

/** Where an unreadable entry is reported (the process's logger). */
export interface UnreadableLog {
  warn(fields: { key: string }, message: string): void;
}

export function redisSharedAnswers(store: SharedStore, logger?: UnreadableLog): SharedAnswers {
  const { redis } = store;
  const logged = new Set<string>();
  const answers: SharedAnswers = {
    async get(key) {
      const text = await getWithin(redis, [`answer:${key}`], MAX_SHARED_ANSWER_BYTES);
      if (text !== TOO_LONG) return text as string | null;
      answers.unreadable?.(key);
      return null;
    },
    async set(key, text, ttlMs) {
      if (Buffer.byteLength(text) > MAX_SHARED_ANSWER_BYTES) return;
      await redis.set(`answer:${key}`, text, 'PX', ttlMs);
    },
    unreadable(key) {
      if (logged.has(key) || logged.size >= UNREADABLE_LOGGED_MAX) return;
      logged.add(key);
      // The key names a domain the service was asked about, never a secret; the text is not logged.
      logger?.warn(
        { key: `answer:${key}` },
        'a shared answer did not read back as one (a partial write, an older version, or tampering): taken as a miss',
      );
    },
  };
  return answers;
}
