/**
 * The live HTTPS pass/fail probe for runtimes that cannot open sockets (Cloudflare Workers), built
 * on `fetch` alone: the Node probe's verdict, result fields, error kinds and time budget
 * (`../sources/probe/probe.ts`), as far as the runtime lets it see.
 *
 * Where it differs from the Node probe, and why:
 * - The connection cannot be pinned: the platform resolves the name again and picks the address
 *   itself. So the DoH answer is checked first, and the name is refused (`blocked_address`, nothing
 *   fetched) when ANY of its addresses is one the policy refuses; the Node probe instead skips
 *   refused addresses and connects to an allowed one. Against an answer that changes after our
 *   lookup (DNS rebinding) the edge relies on the platform refusing private destinations: a
 *   Worker's fetch does not reach loopback, private or metadata addresses.
 * - The TLS session is invisible: a response means the platform verified chain and name. A
 *   certificate failure gets its `tls_*` kind only when the runtime says why (Node's fetch does);
 *   workerd rejects with an opaque error, reported as `network` (`fetch-error-kind.ts`).
 * - Whether a reset came before or after the handshake is invisible too, so HEAD is retried as
 *   GET after any reset or unparsable answer, where the Node probe retries only after a handshake.
 */
import { type FetchLike, USER_AGENT } from '../sources/bounded-fetch.ts';
import type { SourceResult } from '../sources/failure.ts';
import { PROBE_TIMEOUT_MS } from '../sources/probe/budget.ts';
import type { ProbeErrorKind } from '../sources/probe/error-kind.ts';
import type { Probe } from '../sources/probe/probe.ts';
import { startVerdict } from '../sources/probe/verdict.ts';
import { isPermittedAddress } from '../sources/public-fetch/address-policy.ts';
import { beforeAbort } from '../sources/public-fetch/before-abort.ts';
import { fetchErrorKind } from './fetch-error-kind.ts';

export interface FetchProbeDeps {
  /** Name → A and AAAA addresses through DoH; checked against the policy before anything is fetched. */
  resolve: (name: string) => Promise<SourceResult<string[]>>;
  /** The site's port (443 in production). */
  port: number;
  /** `PROBE_ALLOW_PRIVATE`: test worlds only; cloud metadata and unparsable addresses stay refused. */
  allowPrivate: boolean;
  /** The runtime's fetch; it must verify TLS and honour `redirect: 'manual'` and `signal`. */
  fetch: FetchLike;
  /** Whole-probe budget in milliseconds; default `PROBE_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Monotonic clock in milliseconds, for `ms`; default `performance.now`. */
  now?: () => number;
}

/** What one request produced: a status, or a failure kind. */
type Exchange = { kind: 'response'; status: number } | { kind: 'failure'; error: ProbeErrorKind };

/** HEAD is retried as GET when the server refuses the method, drops it or answers garbage. */
function wantsGet(exchange: Exchange): boolean {
  if (exchange.kind === 'response') return exchange.status === 405 || exchange.status === 501;
  return exchange.error === 'reset' || exchange.error === 'http_error';
}

/** `https://<domain>:<port>/`, or undefined when `domain` would not be the URL's host as it stands. */
function siteUrl(domain: string, port: number): URL | undefined {
  const text = `https://${domain}/`;
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.hostname !== domain.toLowerCase() || url.pathname !== '/') return undefined;
  url.port = String(port); // the default port (443) leaves the URL, and so the Host header, bare
  return url;
}

/** Sends `method /`, keeps the status and discards any body. Never rejects. */
async function exchange(
  fetch: FetchLike,
  method: 'HEAD' | 'GET',
  url: URL,
  signal: AbortSignal,
): Promise<Exchange> {
  try {
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      signal,
      headers: { 'user-agent': USER_AGENT, accept: '*/*' },
    });
    void response.body?.cancel().catch(() => {});
    return { kind: 'response', status: response.status };
  } catch (error) {
    return { kind: 'failure', error: signal.aborted ? 'timeout' : fetchErrorKind(error) };
  }
}

/**
 * Creates the probe. `ok` is true when an HTTP status below 500 came back (a 3xx or 4xx still shows
 * a working site; redirects are not followed). `http_status` is set whenever a status arrived, and
 * `ms` covers the whole probe, resolution included.
 */
export function createFetchProbe(deps: FetchProbeDeps): Probe {
  const { fetch, port, allowPrivate, timeoutMs = PROBE_TIMEOUT_MS } = deps;
  const now = deps.now ?? (() => performance.now());

  return async function fetchProbe(domain) {
    const verdict = startVerdict(now);
    const url = siteUrl(domain, port);
    if (url === undefined) return verdict(false, null, 'blocked_address');
    const signal = AbortSignal.timeout(timeoutMs);

    const resolved = await beforeAbort(
      deps.resolve(domain).catch(() => undefined),
      signal,
    );
    if (signal.aborted) return verdict(false, null, 'timeout');
    if (!resolved?.ok) return verdict(false, null, 'dns_failed');
    const addresses = resolved.value;
    if (addresses.length === 0) return verdict(false, null, 'no_address');
    if (!addresses.every((address) => isPermittedAddress(address, allowPrivate))) {
      return verdict(false, null, 'blocked_address');
    }

    let outcome = await exchange(fetch, 'HEAD', url, signal);
    if (wantsGet(outcome)) outcome = await exchange(fetch, 'GET', url, signal);
    if (outcome.kind === 'failure') return verdict(false, null, outcome.error);
    if (outcome.status >= 500) return verdict(false, outcome.status, 'http_error');
    return verdict(true, outcome.status, null);
  };
}
