/**
 * The RFC 8484 DoH client: GET with the wire-format message, one retry on the fallback resolver,
 * answers cached by TTL (at most 5 minutes) and identical concurrent queries coalesced.
 */
import { boundedFetch, type FetchLike } from '../bounded-fetch.ts';
import { createSourceCache, type SourceCache } from '../cache.ts';
import { fail, type SourceResult, succeed } from '../failure.ts';
import { canonicalName, type DnsAnswer, type DnsRecordType } from './answer.ts';
import { type DecodedAnswer, decodeResponse, encodeQuery, toBase64Url } from './wire.ts';

/** Upstream name reported in `sources` and in 502 bodies. */
export const DOH_SOURCE = 'doh';
/** Media type of RFC 8484 messages. */
export const DNS_MESSAGE_TYPE = 'application/dns-message';
/** Largest response accepted, in bytes. */
export const DOH_MAX_BYTES = 256 * 1024;
/** Longest an answer is cached, in milliseconds, whatever its TTL. */
export const DOH_MAX_CACHE_MS = 5 * 60 * 1000;
/** Default per-attempt budget in milliseconds. */
export const DOH_TIMEOUT_MS = 4000;

export interface DohQueryOptions {
  /** Ask the resolver not to validate DNSSEC (CD bit), to tell a bogus zone from a broken one. */
  cd?: boolean;
}

export interface DohClient {
  readonly primaryUrl: URL;
  readonly fallbackUrl: URL;
  /** Resolves one name and type. Never throws for resolver trouble. */
  query(name: string, type: DnsRecordType, options?: DohQueryOptions): Promise<SourceResult<DnsAnswer>>;
}

export interface DohClientDeps {
  fetch: FetchLike;
  primaryUrl: URL;
  fallbackUrl: URL;
  /** Per-attempt budget in milliseconds (connect + full body). */
  timeoutMs?: number;
  /** Shared answer cache; one is made when omitted. */
  cache?: SourceCache<DnsAnswer>;
}

/** A bounded answer cache whose lifetime is the answer's TTL, capped at `DOH_MAX_CACHE_MS`. */
export function createDohCache(options: { max?: number; now?: () => number } = {}): SourceCache<DnsAnswer> {
  return createSourceCache<DnsAnswer>({
    max: options.max ?? 5000,
    ttlMs: (answer) => Math.min(answer.ttlSeconds * 1000, DOH_MAX_CACHE_MS),
    now: options.now,
  });
}

export function createDohClient(deps: DohClientDeps): DohClient {
  const { fetch, primaryUrl, fallbackUrl, timeoutMs = DOH_TIMEOUT_MS } = deps;
  const cache = deps.cache ?? createDohCache();

  async function ask(resolver: URL, name: string, type: DnsRecordType, cd: boolean) {
    const url = new URL(resolver);
    url.searchParams.set('dns', toBase64Url(encodeQuery(name, type, cd)));
    const response = await boundedFetch(url, {
      source: DOH_SOURCE,
      fetch,
      timeoutMs,
      maxBytes: DOH_MAX_BYTES,
      accept: [DNS_MESSAGE_TYPE],
    });
    if (!response.ok) return response;
    const decoded = decodeResponse(DOH_SOURCE, response.value.body, name, type);
    if (!decoded.ok) return decoded;
    return succeed({ ms: response.value.ms, decoded: decoded.value });
  }

  async function load(name: string, type: DnsRecordType, cd: boolean): Promise<SourceResult<DnsAnswer>> {
    const primary = await ask(primaryUrl, name, type, cd);
    if (primary.ok) return succeed(toAnswer(primary.value, primaryUrl, false));
    const fallback = await ask(fallbackUrl, name, type, cd);
    if (fallback.ok) return succeed(toAnswer(fallback.value, fallbackUrl, true));
    // Both failed: the fallback's failure is reported, the primary's kept as its cause.
    return fail({ ...fallback.failure, cause: primary.failure });
  }

  function toAnswer(
    attempt: { decoded: DecodedAnswer; ms: number },
    resolver: URL,
    fellBack: boolean,
  ): DnsAnswer {
    return { ...attempt.decoded, resolver: resolver.href, ms: attempt.ms, cached: false, fellBack };
  }

  return {
    primaryUrl,
    fallbackUrl,
    async query(rawName, type, options = {}) {
      const name = canonicalName(rawName);
      const cd = options.cd ?? false;
      const { result, cached } = await cache.get(`${name}|${type}|${cd ? 'cd' : ''}`, () =>
        load(name, type, cd),
      );
      if (!result.ok || !cached) return result;
      return succeed({ ...result.value, cached: true, ms: 0 });
    },
  };
}
