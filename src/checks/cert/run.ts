/**
 * The cert check runner: CT lookup and live probe in parallel, then the pure analysis. A CT
 * failure is an `upstream_failed` outcome naming each aggregator; a failed probe is a finding.
 */
import type { ValidDomain } from '../../domain/normalize.ts';
import type { CtLookup } from '../../sources/ct/lookup.ts';
import { readCertificate } from '../../sources/ct/x509.ts';
import type { RunOutcome } from '../outcome.ts';
import { DISCLAIMER, toTimestamp } from '../result-common.ts';
import { assessCertificates } from './assess.ts';
import type { CertResult, LiveProbe } from './result.ts';

type ProbeAnswer = LiveProbe & { cached?: boolean; leaf?: Uint8Array | null };

export interface CertRunnerDeps {
  ct: CtLookup;
  /**
   * The live HTTPS pass/fail probe; it reports trouble in its result rather than throwing,
   * `cached` when it reused a recent verdict, and on Node the served leaf's DER (never answered).
   */
  probe: (domain: string) => Promise<ProbeAnswer>;
  now: () => Date;
}

/** Builds the cert runner used by `/v1/cert`, `check_cert` and site-health. */
export function createCertRunner(
  deps: CertRunnerDeps,
): (domain: ValidDomain) => Promise<RunOutcome<CertResult>> {
  return async function runCert({ domain }) {
    // The leaf is only compared with CT, never answered; it is read while CT is still awaited.
    const [ct, { cached = false, served, ...probe }] = await Promise.all([
      deps.ct(domain),
      probeSafely(deps.probe, domain).then(({ leaf = null, ...answer }) => ({
        ...answer,
        served: leaf ? readCertificate(leaf) : null,
      })),
    ]);
    if (!ct.result.ok) {
      return {
        type: 'upstream_failed',
        upstreams: ct.result.failure.failures.map((failure) => ({
          name: failure.source,
          error: failure.code,
          detail: failure.detail,
        })),
      };
    }
    const now = deps.now();
    const assessment = assessCertificates(ct.result.value.issuances, { ...probe, served }, domain, now);
    return {
      type: 'result',
      result: {
        domain,
        checked_at: toTimestamp(now),
        sources: [
          ...ct.calls,
          { name: 'probe', url: `https://${domain}/`, ok: probe.ok, ms: Math.round(probe.ms), cached },
        ],
        ...assessment,
        ct_source: ct.result.value.source,
        disclaimer: DISCLAIMER,
      },
    };
  };
}

/** A probe that throws is a bug, but it must not sink the CT answer: report it as a failed probe. */
async function probeSafely(probe: CertRunnerDeps['probe'], domain: string): Promise<ProbeAnswer> {
  try {
    return await probe(domain);
  } catch {
    return { ok: false, http_status: null, ms: 0, error: 'probe_error' };
  }
}
