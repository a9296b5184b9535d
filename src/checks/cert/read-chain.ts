/** The served chain the probe answered (DER, leaf first) as the cert analysis reads it. */
import { type ChainCertificateFacts, readChainCertificate } from '../../sources/ct/x509.ts';
import type { PeerChain } from '../../sources/probe/verdict.ts';
import type { CertificateRefusal, ServedChain } from './served-chain.ts';

const REFUSALS: ReadonlySet<string> = new Set<CertificateRefusal>([
  'tls_expired',
  'tls_untrusted',
  'tls_hostname_mismatch',
  'tls_not_yet_valid',
]);

/**
 * The readable certificates of `peer`; null when its leaf cannot be read. `error` is the probe's
 * error kind, which says why Node refused an unverified chain.
 */
export function readServedChain(
  peer: PeerChain,
  error: string | null,
): (ServedChain & { certificates: ChainCertificateFacts[] }) | null {
  const [leaf, ...above] = peer.certificates.map(readChainCertificate);
  if (!leaf) return null;
  const refusal = peer.verified
    ? null
    : error !== null && REFUSALS.has(error)
      ? (error as CertificateRefusal)
      : 'tls_untrusted';
  return { certificates: [leaf, ...above.filter((cert) => cert !== null)], refusal };
}
