/**
 * The RFC 8484 DoH client: GET with the wire-format message, the fallback resolver hedged after a
 * short delay, answers cached by TTL (at most 5 minutes) and identical concurrent queries coalesced.
 */
import type { Breaker } from '../breaker.ts';
import { boundedFetch, type FetchLike } from '../bounded-fetch.ts';
import { createSourceCache, type SourceCache } from '../cache.ts';
import { fail, type SourceFailure, type SourceResult, succeed } from '../failure.ts';
import { canonicalName, type DnsAnswer, type DnsRecordType, type ResolverAttempt } from './answer.ts';
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
export const DOH_TIMEOUT_MS = 3000;
/**
 * How long the primary resolver has before the same question also goes to the fallback; the first
 * answer wins. A hanging primary thus costs this much per lookup, not its whole timeout.
 */
export const DOH_HEDGE_MS = 300;

export interface DohQueryOptions {
  /** Ask the resolver not to validate DNSSEC (CD bit), to tell a bogus zone from a broken one. */
  cd?: boolean;
  /** The caller's deadline: the query then fails with `timeout` (the exchange itself runs on). */
  signal?: AbortSignal;
  /** Skip the cache and any identical query in flight (for the resolver health check). */
  fresh?: boolean;
  /**
   * The domain being checked, when the name asked is one of its lookups: the primary's breaker
   * counts failures per checked domain, not per name (one check asks about twenty names).
   */
  subject?: string;
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
  /** Delay before the fallback is asked too; default `DOH_HEDGE_MS`. */
  hedgeMs?: number;
  /** Shared answer cache; one is made when omitted. */
  cache?: SourceCache<DnsAnswer>;
  /** The primary's circuit breaker: while open, questions go straight to the fallback. */
  primaryBreaker?: Breaker;
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
  const { fetch, primaryUrl, fallbackUrl, timeoutMs = DOH_TIMEOUT_MS, hedgeMs = DOH_HEDGE_MS } = deps;
  const cache = deps.cache ?? createDohCache();
  const breaker = deps.primaryBreaker;

  const ask = (resolver: URL, name: string, type: DnsRecordType, cd: boolean, signal: AbortSignal) =>
    askResolver({ fetch, url: resolver, timeoutMs }, name, type, cd, signal);
  const resolvers: Resolvers = { ask, primaryUrl, fallbackUrl, hedgeMs };

  /**
   * Asks the primary; when it fails, or has not answered within the hedge delay, asks the fallback
   * as well and takes the first answer, cancelling the other exchange.
   */
  async function load(
    name: string,
    type: DnsRecordType,
    cd: boolean,
    subject: string,
  ): Promise<SourceResult<DnsAnswer>> {
    if (breaker && !breaker.allow()) {
      const skipped = { resolver: primaryUrl.href, ok: false, ms: 0, skipped: true as const };
      const fallback = await ask(fallbackUrl, name, type, cd, new AbortController().signal);
      return fallback.ok ? succeed(toAnswer(fallback.value, fallbackUrl, true, [skipped])) : fallback;
    }
    const result = await hedged(resolvers, name, type, cd);
    if (result.primaryHealthy) breaker?.success();
    else breaker?.failure(subject);
    return result.answer;
  }

  return {
    primaryUrl,
    fallbackUrl,
    async query(rawName, type, options = {}) {
      const name = canonicalName(rawName);
      const cd = options.cd ?? false;
      const subject = options.subject ?? name;
      const lookup = options.fresh
        ? load(name, type, cd, subject).then((result) => ({ result, cached: false }))
        : cache.get(`${name}|${type}|${cd ? 'cd' : ''}`, () => load(name, type, cd, subject));
      const outcome = await withDeadline(lookup, options.signal);
      if (outcome === null) return fail(cancelled(name, type));
      const { result, cached } = outcome;
      if (!result.ok || !cached) return result;
      return succeed({ ...result.value, cached: true, ms: 0, attempts: [] });
    },
  };
}

/** The two resolvers a client asks, how, and how long the primary has before the fallback is asked too. */
interface Resolvers {
  ask: (
    resolver: URL,
    name: string,
    type: DnsRecordType,
    cd: boolean,
    signal: AbortSignal,
  ) => Promise<SourceResult<{ decoded: DecodedAnswer; ms: number }>>;
  primaryUrl: URL;
  fallbackUrl: URL;
  hedgeMs: number;
}

/** `primaryHealthy`: the primary answered (a SERVFAIL is an answer about the name), in time to count. */
async function hedged(
  { ask, primaryUrl, fallbackUrl, hedgeMs }: Resolvers,
  name: string,
  type: DnsRecordType,
  cd: boolean,
): Promise<{ answer: SourceResult<DnsAnswer>; primaryHealthy: boolean }> {
  const started = performance.now();
  const cancelPrimary = new AbortController();
  const cancelFallback = new AbortController();
  const primary = ask(primaryUrl, name, type, cd, cancelPrimary.signal);
  const hedgeTimer = delay(hedgeMs);
  const hedge = await Promise.race([primary, hedgeTimer.elapsed.then(() => null)]);
  // A check asks twenty names or more: their timers would all fire one hedge delay later, as the
  // slowest upstream (crt.sh) answers.
  hedgeTimer.cancel();
  if (hedge?.ok)
    return { answer: succeed(toAnswer(hedge.value, primaryUrl, false, [])), primaryHealthy: true };
  const fallback = ask(fallbackUrl, name, type, cd, cancelFallback.signal);
  const first = await Promise.race([
    primary.then((result) => ({ result, from: 'primary' as const })),
    fallback.then((result) => ({ result, from: 'fallback' as const })),
  ]);
  if (first.result.ok && first.from === 'primary') {
    cancelFallback.abort();
    return { answer: succeed(toAnswer(first.result.value, primaryUrl, false, [])), primaryHealthy: true };
  }
  if (first.result.ok) {
    cancelPrimary.abort();
    const lost = { resolver: primaryUrl.href, ok: false, ms: performance.now() - started };
    return {
      answer: succeed(toAnswer(first.result.value, fallbackUrl, true, [lost])),
      primaryHealthy: false,
    };
  }
  const [primaryResult, fallbackResult] = await Promise.all([primary, fallback]);
  const primaryHealthy = primaryResult.ok || primaryResult.failure.code === 'servfail';
  if (fallbackResult.ok) {
    const failed = { resolver: primaryUrl.href, ok: false, ms: performance.now() - started };
    return { answer: succeed(toAnswer(fallbackResult.value, fallbackUrl, true, [failed])), primaryHealthy };
  }
  if (primaryResult.ok) {
    return { answer: succeed(toAnswer(primaryResult.value, primaryUrl, false, [])), primaryHealthy };
  }
  return { answer: fail(bothFailed(primaryResult.failure, fallbackResult.failure)), primaryHealthy };
}

function toAnswer(
  attempt: { decoded: DecodedAnswer; ms: number },
  resolver: URL,
  fellBack: boolean,
  failed: ResolverAttempt[],
): DnsAnswer {
  const attempts = [...failed, { resolver: resolver.href, ok: true, ms: attempt.ms }];
  return { ...attempt.decoded, resolver: resolver.href, ms: attempt.ms, cached: false, fellBack, attempts };
}

interface ResolverCall {
  fetch: FetchLike;
  url: URL;
  timeoutMs: number;
}

/** One exchange with one resolver: the decoded answer and its wall time, or the failure. */
async function askResolver(
  resolver: ResolverCall,
  name: string,
  type: DnsRecordType,
  cd: boolean,
  signal: AbortSignal,
): Promise<SourceResult<{ ms: number; decoded: DecodedAnswer }>> {
  const url = new URL(resolver.url);
  url.searchParams.set('dns', toBase64Url(encodeQuery(name, type, cd)));
  const response = await boundedFetch(url, {
    source: DOH_SOURCE,
    fetch: resolver.fetch,
    timeoutMs: resolver.timeoutMs,
    maxBytes: DOH_MAX_BYTES,
    accept: [DNS_MESSAGE_TYPE],
    signal,
  });
  if (!response.ok) return response;
  const decoded = decodeResponse(DOH_SOURCE, response.value.body, name, type);
  if (!decoded.ok) return decoded;
  return succeed({ ms: response.value.ms, decoded: decoded.value });
}

/**
 * The primary resolver's breaker control: does `url` answer the root zone's SOA (a question no
 * caller chooses, answered from every resolver's cache) within `timeoutMs` (default `DOH_TIMEOUT_MS`)?
 */
export async function resolverAnswers(resolver: {
  fetch: FetchLike;
  url: URL;
  timeoutMs?: number;
}): Promise<boolean> {
  const call = { ...resolver, timeoutMs: resolver.timeoutMs ?? DOH_TIMEOUT_MS };
  return (await askResolver(call, '', 'SOA', false, new AbortController().signal)).ok;
}

/**
 * The failure of a question both resolvers failed. A SERVFAIL from either says the name fails to
 * resolve, and so do two timeouts; otherwise (HTTP errors, garbage, REFUSED) the failure is the
 * resolvers' own trouble and keeps its code. The other resolver's failure is kept as the cause.
 */
function bothFailed(primary: SourceFailure, fallback: SourceFailure): SourceFailure {
  if (fallback.code === 'servfail') return { ...fallback, cause: primary };
  if (primary.code === 'servfail') return { ...primary, cause: fallback };
  if (fallback.code !== 'timeout' || primary.code === 'timeout') return { ...fallback, cause: primary };
  return { ...primary, cause: fallback };
}

function cancelled(name: string, type: DnsRecordType): SourceFailure {
  return {
    code: 'timeout',
    source: DOH_SOURCE,
    detail: `${name || '.'} ${type} was not answered within the check's budget`,
  };
}

/** The lookup's outcome, or null when `signal` fires first. */
async function withDeadline<T>(lookup: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  if (!signal) return lookup;
  if (signal.aborted) return null;
  let onAbort = () => {};
  const aborted = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([lookup, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** A timer that can be cancelled; once cancelled, `elapsed` never settles. */
function delay(ms: number): { elapsed: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms).unref();
  });
  return { elapsed, cancel: () => clearTimeout(timer) };
}
