/**
 * Which condition codes a site-health result could not judge, and which need confirming. A code
 * absent from a result is an all-clear only when the part of the check that would have found it
 * answered: a section that failed, a probe that read no served chain, a CA whose renewal
 * information did not come, a CT source that did not answer — each leaves its codes unknown, and a
 * watch carries them as they were (`next-conditions.ts`).
 */
import { CERT_FINDINGS, CHAIN_FINDINGS } from '../checks/cert/index.ts';
import type { SiteHealthResult } from '../checks/site-health/result.ts';
import { CERT_LIFETIME_LOW, PROBE_FAILED } from './conditions.ts';

/** Codes read from the served chain: a failure of the connection itself hides them. */
const SERVED_CHAIN_CODES: readonly string[] = Object.values(CHAIN_FINDINGS);

/** Codes that compare the served certificate with CT: unknown when the probe read no served chain. */
const SERVED_CODES = new Set<string>([
  ...SERVED_CHAIN_CODES,
  CERT_FINDINGS.renewedNotDeployed,
  'cert.other_ca_not_served',
]);

/**
 * Codes about the judged certificate's expiry. When the probe read no served chain they are about
 * CT's newest certificate: one that expires is raised (every certificate CT holds does), but its
 * absence clears nothing, the site may still serve an older one (an undeployed successor).
 */
const EXPIRY_CODES = new Set<string>([CERT_FINDINGS.expired, CERT_FINDINGS.expiresSoon, CERT_LIFETIME_LOW]);

/** Codes cleared only by a probe that succeeds. */
const CLEARED_BY_PROBE = new Set<string>([PROBE_FAILED, ...SERVED_CHAIN_CODES]);

/** Codes that come from the CA's renewal information (ACME ARI, RFC 9773). */
const ARI_CODES = new Set(['cert.ari_window_passed', 'cert.ca_requested_early_renewal']);

/** Codes read from the renewal history in CT, which one source holds whole and the other not. */
const HISTORY_CODES = new Set(['cert.renewal_watch', 'cert.renewal_stalled', 'cert.fixed_renewal_day']);

/** The CA seen in CT against the CAA records: needs both the cert and the DNS sections. */
const CAA_ISSUER = 'caa.issuer_not_permitted';

type Section = 'cert' | 'dns' | 'expiry';

function sectionOf(code: string): Section {
  if (code.startsWith('cert.') || code === PROBE_FAILED) return 'cert';
  if (code.startsWith('expiry.')) return 'expiry';
  return 'dns';
}

const failed = (section: SiteHealthResult[Section]) => 'error' in section;

/** DNS codes that say a lookup did not answer at either resolver: what it would have found is unknown. */
const LOOKUP_FAILED = { dns: 'dns.lookup_failed', caa: 'caa.lookup_failed' } as const;

function reported(section: SiteHealthResult[Section], code: string): boolean {
  return 'findings' in section && section.findings.some((finding) => finding.code === code);
}

/** Whether the live probe succeeded (the site answered over TLS); false when it was not judged. */
function probeSucceeded(result: SiteHealthResult): boolean {
  return 'live_probe' in result.cert && result.cert.live_probe.ok;
}

/** Whether the result is about the chain the site serves (verified, or read as Node refused it). */
function servedChainRead(result: SiteHealthResult): boolean {
  return 'judged' in result.cert && result.cert.judged.served_chain !== 'not_read';
}

/** What a result can say about a code: whether its presence raises it, whether its absence clears it. */
export interface Judging {
  canRaise(code: string): boolean;
  canClear(code: string): boolean;
}

/** What `result` could judge; a code it can neither raise nor clear is one it could not judge. */
export function judgingOf(result: SiteHealthResult): Judging {
  const { cert } = result;
  const certFailed = failed(cert);
  const served = servedChainRead(result);
  const probeOk = probeSucceeded(result);
  const ariMissing = 'renewal' in cert && cert.renewal.ari?.status === 'unavailable';
  const ctSourceMissing =
    'sources' in cert && cert.sources.some((source) => source.name !== 'probe' && !source.ok);
  // What the cert check itself says it could not see (e.g. the history Cert Spotter does not list);
  // its expiry codes keep the rule below: raised from CT's newest, cleared only from the served leaf.
  const certUnjudged = new Set('judged' in cert ? cert.judged.unjudged : []);
  const dnsLookupFailed = reported(result.dns, LOOKUP_FAILED.dns);
  const caaLookupFailed = reported(result.dns, LOOKUP_FAILED.caa);
  const unjudged = (code: string) => {
    if (code === CAA_ISSUER) return certFailed || failed(result.dns);
    const section = sectionOf(code);
    if (failed(result[section])) return true;
    if (section === 'dns' && code !== LOOKUP_FAILED.dns && code !== LOOKUP_FAILED.caa)
      return code.startsWith('caa.') ? caaLookupFailed : dnsLookupFailed;
    if (section !== 'cert') return false;
    if (certUnjudged.has(code) && !EXPIRY_CODES.has(code)) return true;
    if (SERVED_CODES.has(code) && !served) return true;
    if (ARI_CODES.has(code) && ariMissing) return true;
    return HISTORY_CODES.has(code) && ctSourceMissing;
  };
  return {
    canRaise: (code) => !unjudged(code),
    canClear: (code) =>
      !unjudged(code) && !(EXPIRY_CODES.has(code) && !served) && !(CLEARED_BY_PROBE.has(code) && !probeOk),
  };
}

/**
 * The codes of `result` raised only once the failure is seen twice a few seconds apart: a failed
 * probe, and what the served chain shows (a flaky network, a load balancer with one bad member).
 * `cert.expired` is one of them only when it is about the served leaf; from CT it is a fact.
 */
export function confirmableCodes(result: SiteHealthResult, codes: readonly string[]): string[] {
  const servedLeaf = 'judged' in result.cert && result.cert.judged.source === 'served';
  return codes.filter(
    (code) =>
      code === PROBE_FAILED ||
      SERVED_CHAIN_CODES.includes(code) ||
      (code === CERT_FINDINGS.expired && servedLeaf),
  );
}
