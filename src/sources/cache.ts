/**
 * A bounded LRU of successful upstream answers plus in-flight coalescing: identical concurrent
 * lookups share one upstream call. Failures are shared with concurrent callers but never cached.
 */
import { LRUCache } from 'lru-cache';
import type { SourceResult } from './failure.ts';

export interface CachedLookup<T> {
  result: SourceResult<T>;
  /** True when the answer came from the cache or from a call another request started. */
  cached: boolean;
}

export interface SourceCache<T> {
  /** Returns the cached answer for `key`, joins an identical call in flight, or runs `load`. */
  get(key: string, load: () => Promise<SourceResult<T>>): Promise<CachedLookup<T>>;
  clear(): void;
}

export interface SourceCacheOptions<T> {
  /** Most entries kept. */
  max: number;
  /** Lifetime of a successful answer in milliseconds; may depend on the value (e.g. a DNS TTL). */
  ttlMs: number | ((value: T) => number);
  /** Clock, for tests. */
  now?: () => number;
}

export function createSourceCache<T extends object>(options: SourceCacheOptions<T>): SourceCache<T> {
  const store = new LRUCache<string, { value: T; expiresAt: number }>({ max: options.max });
  const inFlight = new Map<string, Promise<SourceResult<T>>>();
  const now = options.now ?? Date.now;
  const ttlFor = (value: T) => (typeof options.ttlMs === 'function' ? options.ttlMs(value) : options.ttlMs);

  return {
    async get(key, load) {
      const hit = store.get(key);
      if (hit && hit.expiresAt > now()) return { result: { ok: true, value: hit.value }, cached: true };
      const pending = inFlight.get(key);
      if (pending) return { result: await pending, cached: true };

      const call = load().then((result) => {
        if (result.ok) {
          const ttl = ttlFor(result.value);
          if (ttl > 0) store.set(key, { value: result.value, expiresAt: now() + ttl });
        }
        return result;
      });
      inFlight.set(key, call);
      try {
        return { result: await call, cached: false };
      } finally {
        inFlight.delete(key);
      }
    },
    clear() {
      store.clear();
    },
  };
}
