/**
 * The chain a site served (Node), judged from what it claims: its dates and names. Node verified
 * it, or refused it and the probe kept it unverified; either way only those facts are read from it,
 * so a refused chain turns into certificate findings instead of a bare `probe.failed`.
 */
import { nameCovers } from '../../sources/ct/issuance.ts';
import type { Finding } from '../result-common.ts';
import { toTimestamp } from '../result-common.ts';
import { expiryThresholds } from './findings.ts';
import type { ServedCertificate } from './serves-newest.ts';
import { DAY_MS } from './validity.ts';

/** One certificate of the served chain, as read from its DER. */
export interface ChainCertificate extends ServedCertificate {
  subjectDn: string;
  /** DNS names of its subjectAltName, lower case. */
  names: string[];
  /** Subject and issuer are one name: a root, or a self-signed leaf. */
  selfIssued: boolean;
}

/** The kinds of a probe refusal about the certificate (`ProbeErrorKind`). */
export type CertificateRefusal =
  'tls_expired' | 'tls_untrusted' | 'tls_hostname_mismatch' | 'tls_not_yet_valid';

export interface ServedChain {
  /** Leaf first. */
  certificates: ChainCertificate[];
  /** Null when Node verified the chain and the name; else why it refused them. */
  refusal: CertificateRefusal | null;
}

export const CHAIN_FINDINGS = {
  chainExpired: 'cert.chain_expired',
  chainExpiresSoon: 'cert.chain_expires_soon',
  nameMismatch: 'cert.name_mismatch',
  untrusted: 'cert.untrusted',
  notYetValid: 'cert.not_yet_valid',
} as const;

/** Whether the served leaf covers `domain` by its own names. */
function leafCovers(leaf: ChainCertificate, domain: string): boolean {
  return leaf.names.some((name) => nameCovers(name, domain));
}

/**
 * Findings about the served chain beyond the leaf's own expiry (`expiryFindings` judges the leaf):
 * a name the leaf does not cover, a chain that does not verify to a public root, an expired
 * certificate above the leaf, one expiring before the leaf (as `cert.expires_soon` would judge the
 * leaf), a leaf not valid yet.
 */
export function servedChainFindings(chain: ServedChain, domain: string, now: Date): Finding[] {
  const [leaf, ...above] = chain.certificates;
  if (!leaf) return [];
  const findings: Finding[] = [];
  // Node's refusal wins for the name (it also reads IP and CN identities); the SAN test catches a
  // wrong name where an untrusted chain stopped Node before its name check.
  if (chain.refusal === 'tls_hostname_mismatch' || (leaf.names.length > 0 && !leafCovers(leaf, domain))) {
    findings.push({
      code: CHAIN_FINDINGS.nameMismatch,
      severity: 'critical',
      message: `The certificate ${domain} serves does not cover the name (it is for ${leaf.names.slice(0, 3).join(', ') || 'no DNS name'}): browsers refuse the connection.`,
      evidence: `served names ${leaf.names.join(' ') || 'none'}`,
    });
  }
  if (chain.refusal === 'tls_untrusted') {
    const why = leaf.selfIssued
      ? 'it is self-signed'
      : `its issuer (${leaf.issuerDn}) does not lead to a publicly trusted root: a private CA, or an intermediate the server does not send`;
    findings.push({
      code: CHAIN_FINDINGS.untrusted,
      severity: 'critical',
      message: `The certificate chain ${domain} serves does not verify: ${why}. Browsers refuse the connection.`,
      evidence: `issuer ${leaf.issuerDn}; ${chain.certificates.length} certificate(s) served`,
    });
  }
  if (chain.refusal === 'tls_not_yet_valid' || leaf.notBefore > now) {
    findings.push({
      code: CHAIN_FINDINGS.notYetValid,
      severity: 'critical',
      message: `The certificate ${domain} serves is not valid before ${day(leaf.notBefore)}: browsers refuse it until then (or the server's clock is wrong).`,
      evidence: `not_before ${toTimestamp(leaf.notBefore)}`,
    });
  }
  for (const cert of above) findings.push(...aboveLeafFindings(cert, leaf, now));
  return findings;
}

function aboveLeafFindings(cert: ChainCertificate, leaf: ChainCertificate, now: Date): Finding[] {
  const name = cert.subjectDn;
  const evidence = `${name} not_after ${toTimestamp(cert.notAfter)}`;
  const left = (cert.notAfter.getTime() - now.getTime()) / DAY_MS;
  if (left < 0) {
    return [
      {
        code: CHAIN_FINDINGS.chainExpired,
        severity: 'critical',
        message: `The intermediate certificate ${name} in the chain the site serves expired ${Math.ceil(-left)} days ago: browsers refuse the chain although the leaf is valid.`,
        evidence,
      },
    ];
  }
  if (cert.notAfter >= leaf.notAfter) return [];
  const { warnBelow, criticalBelow } = expiryThresholds(leaf);
  if (left >= warnBelow) return [];
  return [
    {
      code: CHAIN_FINDINGS.chainExpiresSoon,
      severity: left < criticalBelow ? 'critical' : 'warning',
      message: `The intermediate certificate ${name} in the chain the site serves expires in ${Math.floor(left)} days, on ${day(cert.notAfter)}, before the leaf (${day(leaf.notAfter)}): the chain breaks then unless the server sends a newer intermediate.`,
      evidence,
    },
  ];
}

function day(date: Date): string {
  return toTimestamp(date).slice(0, 10);
}
