/** Upstream answers every instance with `REDIS_URL` reuses (`SharedAnswers`), under `answer:`. */
import type { SharedAnswers } from '../sources/cache.ts';
import type { SharedStore } from './connection.ts';

/** An answer longer than this (characters of JSON) stays in its instance: one key must stay small. */
export const MAX_SHARED_ANSWER_CHARS = 1_000_000;
/** Most unreadable keys remembered, so each is logged once (the next good answer overwrites it). */
const UNREADABLE_LOGGED_MAX = 1_000;

/** Where an unreadable entry is reported (the process's logger). */
export interface UnreadableLog {
  warn(fields: { key: string }, message: string): void;
}

export function redisSharedAnswers(store: SharedStore, logger?: UnreadableLog): SharedAnswers {
  const { redis } = store;
  const logged = new Set<string>();
  return {
    get: (key) => redis.get(`answer:${key}`),
    async set(key, text, ttlMs) {
      if (text.length > MAX_SHARED_ANSWER_CHARS) return;
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
}
