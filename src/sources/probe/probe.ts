/**
 * The live HTTPS pass/fail probe: resolve through DoH, connect only to an address the SSRF policy
 * allows, HEAD (GET when HEAD is refused), never follow redirects, all within one time budget.
 */
import { createSecureContext, getCACertificates } from 'node:tls';
import type { SourceResult } from '../failure.ts';
import { isPermittedAddress } from '../public-fetch/address-policy.ts';
import { beforeAbort } from '../public-fetch/before-abort.ts';
import { PROBE_TIMEOUT_MS } from './budget.ts';
import {
  connectPinned,
  type ProbeConnector,
  type ProbeTarget,
  pinnedRequest,
  type RequestOutcome,
} from './pinned-request.ts';
import { type ProbeAnswer, startVerdict } from './verdict.ts';

export { PROBE_TIMEOUT_MS };

export interface ProbeDeps {
  /** Name → A and AAAA addresses (the DoH client's `resolveAddresses`); the only resolution made. */
  resolve: (name: string) => Promise<SourceResult<string[]>>;
  /** TCP port to connect to (443 in production). */
  port: number;
  /**
   * Test worlds only: allow loopback and private addresses. Cloud metadata addresses and
   * unparsable ones stay refused even then.
   */
  allowPrivate: boolean;
  /** Whole-probe budget in milliseconds; default `PROBE_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Extra trust anchor (PEM) added to Node's default store, for test CAs. */
  ca?: string | Buffer;
  /** Opens the TLS connection; default `connectPinned`. */
  connect?: ProbeConnector;
  /** Monotonic clock in milliseconds, for `ms`; default `performance.now`. */
  now?: () => number;
}

/** Probes one domain; never rejects. */
export type Probe = (domain: string) => Promise<ProbeAnswer>;

/** HEAD is retried as GET when the server refuses the method, or drops it after a good handshake. */
function wantsGet(outcome: RequestOutcome): boolean {
  if (outcome.kind === 'response') return outcome.status === 405 || outcome.status === 501;
  return outcome.handshaken && (outcome.error === 'reset' || outcome.error === 'http_error');
}

/**
 * Creates the probe. The verdict: `ok` is true only when the TLS handshake verified the chain and
 * the name, and an HTTP status below 500 came back (a 3xx or 4xx still shows a working site).
 * Failures carry `error` (`ProbeErrorKind`); `http_status` is set whenever a status arrived.
 * `chain` is the served chain whenever a handshake completed: verified, or refused for its
 * certificate (then no request was sent).
 * Of the resolved addresses the first one the policy allows is used; refused ones are never
 * connected to. `ms` covers the whole probe, resolution included.
 */
export function createProbe(deps: ProbeDeps): Probe {
  const { port, allowPrivate, timeoutMs = PROBE_TIMEOUT_MS, connect = connectPinned } = deps;
  const now = deps.now ?? (() => performance.now());
  // Made once: `tls.connect` would build a context per connection, and from a `ca` list (which
  // replaces Node's store, so the default anchors are carried along) that parses every root
  // certificate again, ~13 ms of blocked event loop per probe.
  const secureContext = createSecureContext(
    deps.ca === undefined ? {} : { ca: [...getCACertificates('default'), deps.ca] },
  );

  return async function probe(domain) {
    const verdict = startVerdict(now);
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), timeoutMs);
    try {
      const resolved = await beforeAbort(
        deps.resolve(domain).catch(() => undefined),
        budget.signal,
      );
      if (budget.signal.aborted) return verdict(false, null, 'timeout');
      if (!resolved?.ok) return verdict(false, null, 'dns_failed');
      if (resolved.value.length === 0) return verdict(false, null, 'no_address');
      const address = resolved.value.find((candidate) => isPermittedAddress(candidate, allowPrivate));
      if (address === undefined) return verdict(false, null, 'blocked_address');

      const target: ProbeTarget = { address, port, servername: domain, secureContext };
      let outcome = await pinnedRequest('HEAD', target, connect, budget.signal);
      if (wantsGet(outcome)) outcome = await pinnedRequest('GET', target, connect, budget.signal);
      const { chain } = outcome;
      if (outcome.kind === 'failure') return { ...verdict(false, null, outcome.error), chain };
      if (outcome.status >= 500) return { ...verdict(false, outcome.status, 'http_error'), chain };
      return { ...verdict(true, outcome.status, null), chain };
    } finally {
      clearTimeout(timer);
    }
  };
}
