/**
 * ACME Renewal Information (RFC 9773) from the configured CAs: the `renewalInfo` URL read from each
 * CA's directory (cached, and refused on another host than the directory's), then
 * `GET {renewalInfo}/{CertID}`, unauthenticated. Answers are kept per CertID for the CA's
 * `Retry-After` (clamped to 1 minute … 1 day); concurrent asks for one certificate share one
 * request; each CA is asked at a pace (pace.ts). Never throws and never takes longer than its
 * budget: trouble is an `unavailable` answer.
 */
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { type AcmeCa, type AcmeDirectory, acmeCaOf } from './acme-cas.ts';
import { boundedFetch, type BoundedResponse, type FetchLike } from '../bounded-fetch.ts';
import { createSourceCache } from '../cache.ts';
import { type SourceCall, type SourceResult, succeed } from '../failure.ts';
import { parseJsonReply } from '../ct/parse-reply.ts';
import { withoutCredentials } from '../public-fetch/public-fetch.ts';
import { createPace, type Pace } from './pace.ts';
import { parseRfc3339 } from './rfc3339.ts';

export const ARI_SOURCE = 'ari';
/** Longest an ARI ask may take, directory included, in milliseconds. */
export const ARI_BUDGET_MS = 2_000;
/** Clamp of `Retry-After` (RFC 9773 §4.3 lets a client pick its own bounds). */
export const ARI_MIN_RETRY_MS = 60_000;
export const ARI_MAX_RETRY_MS = 86_400_000;
/** A timeout after at least this long (not one cut short by the check's budget) pauses the CA. */
export const ARI_PAUSE_AFTER_TIMEOUT_MS = 1_000;
/**
 * How long an answer without `Retry-After`, a "not found" and a long-term error (an invalid
 * answer, an unexpected 4xx) are kept (RFC 9773 §4.3: about 6 hours).
 */
export const ARI_DEFAULT_RETRY_MS = 6 * 3_600_000;
/**
 * A temporary error (5xx, timeout, unreachable) is kept 1 minute, then twice as long after each
 * further one in a row for the same certificate, up to 6 hours (RFC 9773 §4.3: exponential backoff);
 * a `Retry-After` the CA sent wins.
 */
export const ARI_BACKOFF_MAX_MS = ARI_DEFAULT_RETRY_MS;
/** How long a directory is kept once read. */
export const ACME_DIRECTORY_TTL_MS = 3_600_000;
/** Largest directory or renewalInfo body accepted, in bytes (both are a few hundred bytes). */
export const ARI_MAX_BYTES = 64 * 1024;
/** Most CertIDs whose answer is kept. */
export const ARI_CACHE_MAX_ENTRIES = 10_000;

export type AriStatus = 'ok' | 'not_supported' | 'not_found' | 'unavailable';

/** What the CA said about one certificate, or why nothing was learnt. */
export interface AriReading {
  status: AriStatus;
  window: { start: Date; end: Date } | null;
  /** The CA's explanation URL; null when absent or empty. */
  explanationUrl: string | null;
  /** When the CA answered; null when it did not. */
  checkedAt: Date | null;
}

export interface AriAnswer extends AriReading {
  ca: AcmeCa | null;
  /** The source entry of the call; null when no CA was asked (not supported). */
  call: SourceCall | null;
}

export interface AriClient {
  /** Asks the CA that issued a certificate (by friendly issuer name) about `certId`. */
  ask(issuer: string, certId: string, budgetMs?: number): Promise<AriAnswer>;
  /** Whether the issuer is a CA configured in `ACME_DIRECTORIES`. */
  supports(issuer: string): boolean;
}

export interface AriClientOptions {
  fetch: FetchLike;
  directories: readonly AcmeDirectory[];
  /** Wall clock, for `checkedAt`. */
  now: () => Date;
  /** Monotonic clock in milliseconds, for budgets, cache lifetimes and the pace. */
  clock?: () => number;
  /** One pace per CA; default `createPace()` for each. */
  paceOf?: (ca: AcmeCa) => Pace;
}

interface Stored extends AriReading {
  ttlMs: number;
  /** A temporary error, kept by the backoff unless the CA said `Retry-After` (`ttlMs` then). */
  temporary?: { retryMs: number | null };
  /** The renewalInfo base URL asked; null when the directory did not give one. */
  url: string | null;
}

/** Longest explanation URL shown; a longer one is dropped, never the window with it. */
const EXPLANATION_URL_MAX = 2_048;

const rfc3339 = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const date = parseRfc3339(value);
    if (date === null) ctx.addIssue({ code: 'custom', message: 'not an RFC 3339 date-time' });
    return date ?? new Date(Number.NaN);
  });

// `explanationURL` is optional (RFC 9773 §4.2): whatever it holds, it never voids the window.
const renewalInfoSchema = z.object({
  suggestedWindow: z.object({ start: rfc3339, end: rfc3339 }),
  explanationURL: z.unknown().optional(),
});

const directorySchema = z.object({ renewalInfo: z.string().max(2_048).optional() });

export function createAriClient(options: AriClientOptions): AriClient {
  const clock = options.clock ?? (() => performance.now());
  const paces = new Map<AcmeCa, Pace>();
  const paceOf = (ca: AcmeCa): Pace => {
    let pace = paces.get(ca);
    if (!pace) {
      pace = options.paceOf?.(ca) ?? createPace({ clock });
      paces.set(ca, pace);
    }
    return pace;
  };
  const directories = createSourceCache<DirectoryReading>({
    max: 16,
    ttlMs: (value) => (value.state === 'unreadable' ? value.keepMs : ACME_DIRECTORY_TTL_MS),
    now: clock,
  });
  const answers = createSourceCache<Stored>({
    max: ARI_CACHE_MAX_ENTRIES,
    ttlMs: (value) => value.ttlMs,
    now: clock,
  });
  /** Temporary errors in a row per certificate, for the backoff; cleared by an answer. */
  const failuresInRow = new LRUCache<string, number>({ max: ARI_CACHE_MAX_ENTRIES });
  const pacing: Pacing = { options, clock, paceOf };

  /**
   * The CA's directory, read at most once an hour (an unreadable one once a minute, one the check
   * cut short not kept).
   */
  async function readDirectory(directory: AcmeDirectory, deadline: number): Promise<DirectoryReading> {
    const { result } = await directories.get(directory.ca, async () => {
      const { reply, cutShort } = await paced(pacing, directory.ca, directory.directoryUrl, deadline, [
        'application/json',
      ]);
      if (reply?.ok && reply.value.status === 200) return succeed(renewalInfoOf(reply.value, directory));
      return succeed(unreadable(cutShort ? 0 : ARI_MIN_RETRY_MS));
    });
    return result.ok ? result.value : unreadable(0);
  }

  const directoryOf = (issuer: string) => {
    const ca = acmeCaOf(issuer);
    return options.directories.find((entry) => entry.ca === ca);
  };

  async function ask(issuer: string, certId: string, budgetMs = ARI_BUDGET_MS): Promise<AriAnswer> {
    const started = clock();
    const deadline = started + Math.min(budgetMs, ARI_BUDGET_MS);
    const ca = acmeCaOf(issuer);
    const directory = directoryOf(issuer);
    if (ca === null || !directory) return { ...NOT_ASKED, status: 'not_supported', ca, call: null };
    const key = `${ca} ${certId}`;
    const { result, cached } = await answers.get(key, async () => {
      const found = await readDirectory(directory, deadline);
      if (found.state === 'none') return succeed(NO_RENEWAL_INFO);
      if (found.state === 'unreadable')
        return succeed(unavailable(found.keepMs, directory.directoryUrl.href));
      const base = found.renewalInfo.href;
      const { reply, cutShort } = await paced(
        pacing,
        ca,
        new URL(`${base.replace(/\/+$/, '')}/${certId}`),
        deadline,
        ['application/json'],
      );
      return succeed(
        cutShort ? unavailable(0, base) : keptFor(failuresInRow, key, reading(reply, options.now(), base)),
      );
    });
    if (!result.ok) throw new Error('unreachable: the ARI loader never fails');
    const { ttlMs: _ttl, temporary: _temporary, url, ...answer } = result.value;
    const call =
      url === null ? null : ariCall(url, answer.status, cached ? 0 : Math.round(clock() - started), cached);
    return { ...answer, ca, call };
  }

  return { ask, supports: (issuer) => directoryOf(issuer) !== undefined };
}

/** What a client's requests to the CAs share: its options, its clock and each CA's pace. */
interface Pacing {
  options: AriClientOptions;
  clock: () => number;
  paceOf: (ca: AcmeCa) => Pace;
}

/**
 * A GET to the CA at its pace, within `deadline`. `reply` is null when the pace left no slot in
 * time; `cutShort` when no fair answer was waited for (no slot, or a timeout the check's budget
 * shortened below a second): such a miss is the check's, not the CA's, and is not kept.
 */
async function paced(
  { options, clock, paceOf }: Pacing,
  ca: AcmeCa,
  url: URL,
  deadline: number,
  accept: readonly string[],
): Promise<{ reply: SourceResult<BoundedResponse> | null; cutShort: boolean }> {
  const wait = paceOf(ca).reserve(deadline - clock());
  if (wait === null) return { reply: null, cutShort: true };
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const timeoutMs = Math.max(1, Math.floor(deadline - clock()));
  const reply = await boundedFetch(url, {
    source: ARI_SOURCE,
    fetch: options.fetch,
    timeoutMs,
    maxBytes: ARI_MAX_BYTES,
    accept,
    statusOnly: [400, 404, 429, 503],
  });
  if (reply.ok && (reply.value.status === 429 || reply.value.status === 503)) {
    const retry = retryAfterMs(reply.value.headers, options.now());
    if (retry !== null) paceOf(ca).pauseUntil(clock() + retry);
  }
  // A CA that cannot be reached, or let a full second pass, is left alone for a minute: while
  // it is down, checks of its certificates do not each wait out ARI's bound.
  const unreachable = !reply.ok && (reply.failure.code === 'network' || reply.failure.code === 'timeout');
  const fair = timeoutMs >= ARI_PAUSE_AFTER_TIMEOUT_MS;
  if (unreachable && fair) paceOf(ca).pauseUntil(clock() + ARI_MIN_RETRY_MS);
  return { reply, cutShort: !fair && !reply.ok && reply.failure.code === 'timeout' };
}

/** `stored` kept until its retry: temporary errors in a row back off, an answer clears them. */
function keptFor(failuresInRow: LRUCache<string, number>, key: string, stored: Stored): Stored {
  if (!stored.temporary) {
    if (stored.status === 'ok' || stored.status === 'not_found') failuresInRow.delete(key);
    return stored;
  }
  const failures = (failuresInRow.get(key) ?? 0) + 1;
  failuresInRow.set(key, failures);
  const backoff = Math.min(ARI_BACKOFF_MAX_MS, ARI_MIN_RETRY_MS * 2 ** Math.min(failures - 1, 16));
  return { ...stored, ttlMs: stored.temporary.retryMs ?? backoff };
}

/** The call a check reports for a renewal-info answer of `status`. */
function ariCall(url: string, status: AriReading['status'], ms: number, cached: boolean): SourceCall {
  return { name: ARI_SOURCE, url, ok: status === 'ok' || status === 'not_found', ms, cached };
}

const NOT_ASKED: AriReading = { status: 'unavailable', window: null, explanationUrl: null, checkedAt: null };
/** The CA's directory advertises no `renewalInfo` (or one on another host): the CA has no ARI. */
const NO_RENEWAL_INFO: Stored = {
  ...NOT_ASKED,
  status: 'not_supported',
  ttlMs: ACME_DIRECTORY_TTL_MS,
  url: null,
};

type DirectoryReading =
  | { state: 'ok'; renewalInfo: URL }
  /** No usable `renewalInfo`: the CA publishes no ARI. */
  | { state: 'none' }
  /** Kept for `keepMs` (0: a read the check cut short, not kept). */
  | { state: 'unreadable'; keepMs: number };

function unreadable(keepMs: number): DirectoryReading {
  return { state: 'unreadable', keepMs };
}

function unavailable(ttlMs: number, url: string): Stored {
  return { ...NOT_ASKED, ttlMs, url };
}

/** The directory's `renewalInfo`, accepted only on the directory's own scheme and host. */
function renewalInfoOf(response: BoundedResponse, directory: AcmeDirectory): DirectoryReading {
  const parsed = parseJsonReply(ARI_SOURCE, response.body, directorySchema);
  if (!parsed.ok) return unreadable(ARI_MIN_RETRY_MS);
  const value = parsed.value.renewalInfo;
  if (value === undefined || !URL.canParse(value)) return { state: 'none' };
  const url = withoutCredentials(new URL(value));
  const own = directory.directoryUrl;
  return url.protocol === own.protocol && url.host === own.host
    ? { state: 'ok', renewalInfo: url }
    : { state: 'none' };
}

/**
 * The reading of one renewalInfo reply (null: the pace left no slot in the budget). Temporary
 * errors (5xx, 429, timeout, unreachable) are marked for the backoff; long-term ones (an invalid
 * answer, another status) are kept about 6 hours (RFC 9773 §4.3).
 */
function reading(reply: SourceResult<BoundedResponse> | null, now: Date, url: string): Stored {
  const longTerm = unavailable(ARI_DEFAULT_RETRY_MS, url);
  const temporary = (retryMs: number | null): Stored => ({ ...unavailable(0, url), temporary: { retryMs } });
  if (!reply) return temporary(null);
  if (!reply.ok) {
    const { code, status = 0 } = reply.failure;
    const passing = code === 'network' || code === 'timeout' || (code === 'http_status' && status >= 500);
    return passing ? temporary(null) : longTerm;
  }
  const { status, headers, body } = reply.value;
  const retry = retryAfterMs(headers, now);
  if (status === 400 || status === 404) {
    return { ...NOT_ASKED, status: 'not_found', checkedAt: now, ttlMs: ARI_DEFAULT_RETRY_MS, url };
  }
  if (status !== 200) return temporary(retry);
  const parsed = parseJsonReply(ARI_SOURCE, body, renewalInfoSchema);
  if (!parsed.ok) return longTerm;
  const window = parsed.value.suggestedWindow;
  if (Number.isNaN(window.start.getTime()) || window.end <= window.start) return longTerm;
  return {
    status: 'ok',
    window,
    explanationUrl: explanationUrl(parsed.value.explanationURL),
    checkedAt: now,
    ttlMs: retry ?? ARI_DEFAULT_RETRY_MS,
    url,
  };
}

/** An http(s) explanation URL of reasonable length, or null (Google sends `""`; null, a number...). */
function explanationUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > EXPLANATION_URL_MAX || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

/** `Retry-After` (seconds or an HTTP date) in milliseconds, clamped to 1 minute … 1 day; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: Date): number | null {
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now.getTime();
  if (Number.isNaN(ms)) return null;
  return Math.min(ARI_MAX_RETRY_MS, Math.max(ARI_MIN_RETRY_MS, ms));
}
