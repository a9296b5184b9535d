/** A probe's verdict and its duration, shared by the Node and edge probes (no Node imports). */
import type { ProbeErrorKind } from './error-kind.ts';

/** The probe's own verdict, as the cert result publishes it (`live_probe` in checks/cert/result.ts). */
export interface ProbeVerdict {
  ok: boolean;
  http_status: number | null;
  ms: number;
  error: string | null;
}

/**
 * The certificates a site presented in a completed handshake, leaf first (DER). `verified` false:
 * Node refused the certificate (expired, untrusted, wrong name), and the chain is trusted for
 * nothing but the dates and names written in it.
 */
export interface PeerChain {
  certificates: Uint8Array[];
  verified: boolean;
}

/**
 * What a probe answers: the verdict, and on Node the chain the site served (workerd cannot read it:
 * cloudflare/workerd#1041). The chain is for the cert analysis and is never put into an answer.
 */
export type ProbeAnswer = ProbeVerdict & { chain?: PeerChain | null };

/** Builds the verdict, with `ms` measured from when the probe started. */
export type Verdict = (ok: boolean, status: number | null, error: ProbeErrorKind | null) => ProbeVerdict;

/** Starts timing one probe on the monotonic clock `now` (milliseconds). */
export function startVerdict(now: () => number): Verdict {
  const started = now();
  return (ok, status, error) => ({ ok, http_status: status, ms: Math.round(now() - started), error });
}
