/**
 * The codes a cert result could not judge (`judged.unjudged`): a finding that is absent because
 * its evidence was not seen says nothing, so a watch carries such a condition over instead of
 * clearing it (contract §6.1).
 */
import { CERT_FINDINGS } from './findings.ts';
import { CHAIN_FINDINGS } from './served-chain.ts';

/** Codes only the served chain can show: they are judged only when the probe read it. */
export const SERVED_CHAIN_CODES: readonly string[] = [
  CHAIN_FINDINGS.chainExpired,
  CHAIN_FINDINGS.chainExpiresSoon,
  CHAIN_FINDINGS.nameMismatch,
  CHAIN_FINDINGS.untrusted,
  CHAIN_FINDINGS.notYetValid,
  CERT_FINDINGS.renewedNotDeployed,
];

/**
 * Codes about the served certificate's expiry, and the watch condition on its lifetime
 * (`cert.lifetime_low`, src/watches/conditions.ts): on Node, without the served leaf they would be
 * about CT's newest certificate instead, a different certificate.
 */
export const SERVED_EXPIRY_CODES: readonly string[] = [
  CERT_FINDINGS.expired,
  CERT_FINDINGS.expiresSoon,
  'cert.lifetime_low',
];

/** Codes that need the CT history Cert Spotter does not list (expired certificates). */
export const HISTORY_CODES: readonly string[] = [CERT_FINDINGS.fixedRenewalDay];

export function unjudgedCodes(input: {
  readsLeaf: boolean;
  chainRead: boolean;
  ctSource: 'crt.sh' | 'certspotter';
}): string[] {
  return [
    ...(input.chainRead ? [] : SERVED_CHAIN_CODES),
    // The Worker never reads the leaf: its expiry codes are always CT's newest's, consistently.
    ...(input.chainRead || !input.readsLeaf ? [] : SERVED_EXPIRY_CODES),
    ...(input.ctSource === 'certspotter' ? HISTORY_CODES : []),
  ];
}
