/** Upstream answers every instance with `REDIS_URL` reuses (`SharedAnswers`), under `answer:`. */
import type { SharedAnswers } from '../sources/cache.ts';
import type { SharedStore } from './connection.ts';

/** An answer longer than this (characters of JSON) stays in its instance: one key must stay small. */
export const MAX_SHARED_ANSWER_CHARS = 1_000_000;

export function redisSharedAnswers(store: SharedStore): SharedAnswers {
  const { redis } = store;
  return {
    get: (key) => redis.get(`answer:${key}`),
    async set(key, text, ttlMs) {
      if (text.length > MAX_SHARED_ANSWER_CHARS) return;
      await redis.set(`answer:${key}`, text, 'PX', ttlMs);
    },
  };
}
