/**
 * The cert check runner: CT lookup and live probe in parallel, ARI about the judged certificate
 * beside them, then the pure analysis. A CT failure is an `upstream_failed` outcome naming each aggregator; a failed probe is
 * a finding; ARI trouble is only a status (it never fails or slows the check past its budget).
 */
import type { ValidDomain } from '../../domain/normalize.ts';
import type { AriLookup, AriOutcome, EarlyAri } from '../../sources/ari/lookup.ts';
import { ARI_BUDGET_MS } from '../../sources/ari/renewal-info.ts';
import type { CtLookup } from '../../sources/ct/lookup.ts';
import type { PeerChain } from '../../sources/probe/verdict.ts';
import { CHECK_BUDGET_MS } from '../check-budget.ts';
import { afterRequestsSent } from '../../sources/on-the-wire.ts';
import type { RunOutcome } from '../outcome.ts';
import { DISCLAIMER, toTimestamp } from '../result-common.ts';
import { assessCertificates, currentTrustedIssuance, judgedIssuance } from './assess.ts';
import type { CertResult, LiveProbe } from './result.ts';
import { readServedChain } from './read-chain.ts';

/** Time kept back from the check's budget for the analysis and the answer, in milliseconds. */
const ANSWER_RESERVE_MS = 250;

type ProbeAnswer = LiveProbe & { cached?: boolean; chain?: PeerChain | null };

export interface CertRunnerDeps {
  ct: CtLookup;
  /**
   * The live HTTPS pass/fail probe; it reports trouble in its result rather than throwing,
   * `cached` when it reused a recent verdict, and on Node the served chain's DER (never answered).
   */
  probe: (domain: string) => Promise<ProbeAnswer>;
  /** ACME Renewal Information; null when `ACME_DIRECTORIES` is empty. */
  ari?: AriLookup | null;
  /** False where the probe cannot read the served certificate (Cloudflare Workers); default true. */
  readsServedLeaf?: boolean;
  now: () => Date;
  /** Monotonic clock in milliseconds; default `performance.now`. */
  clock?: () => number;
}

/** Builds the cert runner used by `/v1/cert`, `check_cert` and site-health. */
export function createCertRunner(
  deps: CertRunnerDeps,
): (domain: ValidDomain) => Promise<RunOutcome<CertResult>> {
  const clock = deps.clock ?? (() => performance.now());
  const ari = deps.ari ?? null;
  const readsLeaf = deps.readsServedLeaf ?? true;
  return async function runCert({ domain }) {
    const started = clock();
    /** ARI's own bound, inside what is left of the check's budget. */
    const ariBudget = () => Math.min(ARI_BUDGET_MS, started + CHECK_BUDGET_MS - ANSWER_RESERVE_MS - clock());
    // CT is the slowest path: its request leaves first, the probe's address lookups after it.
    const looking = deps.ct(domain);
    // The leaf is only read and compared with CT: it never goes into the answer.
    const probing = afterRequestsSent()
      .then(() => probeSafely(deps.probe, domain))
      .then(({ chain: peer = null, ...answer }) => {
        const chain = peer ? readServedChain(peer, answer.error) : null;
        return { ...answer, chain, served: chain?.certificates[0] ?? null };
      });
    // The served leaf usually is the judged certificate and arrives before CT: ask about it now
    // (only a verified one: a refused chain is read for its dates and names, nothing else).
    const early: Promise<EarlyAri | null> = probing.then(({ served, chain }) =>
      ari && served && chain?.refusal === null ? ari.aboutLeaf(served, deps.now(), ariBudget()) : null,
    );
    // ARI about the judged certificate (judged-certificate.ts), which needs the served leaf. When CT
    // alone identifies its newest certificate, that one (the usual judged one) is asked about as
    // soon as CT answers, so a slow site does not hold the CA's answer back; the judged one is
    // asked about too when the leaf shows it is another.
    const asking = looking.then(async (ct): Promise<AriOutcome | null> => {
      const newest = ct.result.ok ? currentTrustedIssuance(ct.result.value.issuances, domain) : null;
      if (!ari || !newest || !ct.result.ok) return null;
      const { issuances } = ct.result.value;
      const speculative = ari.needsNoLeaf(newest, deps.now())
        ? ari.aboutIssuance(newest, deps.now(), ariBudget(), await settledOrNull(early))
        : null;
      const { served } = await probing;
      const judged = judgedIssuance(issuances, domain, served, readsLeaf).issuance;
      if (speculative && judged === newest) return speculative;
      return judged ? ari.aboutIssuance(judged, deps.now(), ariBudget(), await early) : null;
    });
    const [ct, { cached = false, served, ...probe }, answer] = await Promise.all([looking, probing, asking]);
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
    const { issuances } = ct.result.value;
    const now = deps.now();
    const assessment = assessCertificates(
      issuances,
      { ...probe, served, readsLeaf },
      domain,
      now,
      answer,
      ct.result.value.source,
    );
    return {
      type: 'result',
      result: {
        domain,
        checked_at: toTimestamp(now),
        sources: [
          ...ct.calls,
          { name: 'probe', url: `https://${domain}/`, ok: probe.ok, ms: Math.round(probe.ms), cached },
          ...(answer?.call ? [answer.call] : []),
        ],
        ...assessment,
        ct_source: ct.result.value.source,
        disclaimer: DISCLAIMER,
      },
    };
  };
}

/** The value of `pending` if it has already settled, else null (never waits for it). */
function settledOrNull<T>(pending: Promise<T | null>): Promise<T | null> {
  return Promise.race([pending, Promise.resolve(null)]);
}

/** A probe that throws is a bug, but it must not sink the CT answer: report it as a failed probe. */
async function probeSafely(probe: CertRunnerDeps['probe'], domain: string): Promise<ProbeAnswer> {
  try {
    return await probe(domain);
  } catch {
    return { ok: false, http_status: null, ms: 0, error: 'probe_error' };
  }
}
