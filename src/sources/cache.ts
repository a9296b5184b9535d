/**
 * A bounded LRU of successful upstream answers plus in-flight coalescing: identical concurrent
 * lookups share one upstream call. Failures are shared with concurrent callers but never cached.
 * Optionally a second tier other instances share: a local miss asks it before the upstream, and a
 * good answer is written there with its expiry (coalescing stays per instance).
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

/** Answers other instances share (a Redis-protocol store): text by key, kept for a TTL. */
export interface SharedAnswers {
  /** The text under `key`, or null; rejects when the store cannot be asked. */
  get(key: string): Promise<string | null>;
  set(key: string, text: string, ttlMs: number): Promise<void>;
  /**
   * Told when the text under `key` does not read back as an answer (a partial write, an older
   * version's entry, a tampered key): it was taken as a miss and will be overwritten.
   */
  unreadable?(key: string): void;
}

/**
 * A tier other instances share, the namespace of one cache's keys in it, and how a value is written
 * as JSON and read back (e.g. dates, bytes).
 */
export interface SharedTier<T> {
  answers: SharedAnswers;
  namespace: string;
  replace?: (key: string, value: unknown) => unknown;
  revive?: (key: string, value: unknown) => unknown;
  /** Whether a revived value is a whole answer; anything else read back is a miss. */
  accept: (value: unknown) => value is T;
}

export interface SourceCacheOptions<T> {
  /** Most entries kept. */
  max: number;
  /** Lifetime of a successful answer in milliseconds; may depend on the value (e.g. a DNS TTL). */
  ttlMs: number | ((value: T) => number);
  /** Clock, for tests. */
  now?: () => number;
  shared?: SharedTier<T>;
}

/** An answer with the moment it expires (epoch milliseconds). */
export interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Another instance's answer under `key`, unexpired as of `nowMs`; none when the tier is empty or
 * unreachable, or holds text that does not read back as an answer (told to the tier).
 */
export async function readShared<T>(
  tier: SharedTier<T>,
  key: string,
  nowMs: number,
): Promise<Entry<T> | undefined> {
  const sharedKey = `${tier.namespace}:${key}`;
  let text: string | null;
  try {
    text = await tier.answers.get(sharedKey);
  } catch {
    return undefined;
  }
  if (text === null) return undefined;
  const entry = readEntry(text, tier);
  if (!entry) {
    tier.answers.unreadable?.(sharedKey);
    return undefined;
  }
  return entry.expiresAt > nowMs ? entry : undefined;
}

/** Offers `entry` to the other instances for `ttlMs`; a store that cannot take it is no failure. */
export function writeShared<T>(tier: SharedTier<T>, key: string, entry: Entry<T>, ttlMs: number): void {
  tier.answers.set(`${tier.namespace}:${key}`, JSON.stringify(entry, tier.replace), ttlMs).catch(() => {});
}

export function createSourceCache<T extends object>(options: SourceCacheOptions<T>): SourceCache<T> {
  const store = new LRUCache<string, Entry<T>>({ max: options.max });
  const inFlight = new Map<string, Promise<{ result: SourceResult<T>; shared: boolean }>>();
  const now = options.now ?? Date.now;
  const ttlFor = (value: T) => (typeof options.ttlMs === 'function' ? options.ttlMs(value) : options.ttlMs);
  const { shared } = options;

  async function load(key: string, upstream: () => Promise<SourceResult<T>>) {
    // Without a shared tier the upstream is asked at once, not a few microtasks later: a check's
    // slowest request (crt.sh) then leaves before the other checks' first ones.
    const remembered = shared ? await readShared(shared, key, now()) : undefined;
    if (remembered) {
      store.set(key, remembered);
      return { result: { ok: true, value: remembered.value } as const, shared: true };
    }
    const result = await upstream();
    if (result.ok) {
      const ttl = ttlFor(result.value);
      if (ttl > 0) {
        const entry = { value: result.value, expiresAt: now() + ttl };
        store.set(key, entry);
        if (shared) writeShared(shared, key, entry, ttl);
      }
    }
    return { result, shared: false };
  }

  return {
    async get(key, upstream) {
      const hit = store.get(key);
      if (hit && hit.expiresAt > now()) return { result: { ok: true, value: hit.value }, cached: true };
      const pending = inFlight.get(key);
      if (pending) return { result: (await pending).result, cached: true };

      const call = load(key, upstream);
      inFlight.set(key, call);
      try {
        const { result, shared: fromAnother } = await call;
        return { result, cached: fromAnother };
      } finally {
        inFlight.delete(key);
      }
    },
    clear() {
      store.clear();
    },
  };
}

/** A shared entry read back, or null when the text is not one (bad JSON, wrong shape, an answer `accept` refuses). */
function readEntry<T>(text: string, shared: SharedTier<T>): Entry<T> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, shared.revive);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { value, expiresAt } = parsed as { value?: unknown; expiresAt?: unknown };
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt) || !shared.accept(value)) return null;
  return { value, expiresAt };
}
