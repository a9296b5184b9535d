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
 * What a probe answers: the verdict, and on Node the DER of the leaf certificate the site served
 * after a verified handshake (workerd cannot read it: cloudflare/workerd#1041). The leaf is for
 * comparing with CT and is never put into an answer.
 */
export type ProbeAnswer = ProbeVerdict & { leaf?: Uint8Array | null };

/** Builds the verdict, with `ms` measured from when the probe started. */
export type Verdict = (ok: boolean, status: number | null, error: ProbeErrorKind | null) => ProbeVerdict;

/** Starts timing one probe on the monotonic clock `now` (milliseconds). */
export function startVerdict(now: () => number): Verdict {
  const started = now();
  return (ok, status, error) => ({ ok, http_status: status, ms: Math.round(now() - started), error });
}
