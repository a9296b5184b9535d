/** What the rest of the app may use from the CT sources. */
export { type CertificateDer, createCertificateDer } from './certificate-der.ts';
export type { CtLookupFailure, CtSourceName } from './failure.ts';
export { canonicalSerial, coveringWildcard, type Issuance, issuanceCovers, nameCovers } from './issuance.ts';
export { issuerFriendlyName } from './issuer-name.ts';
export {
  CT_BUDGET_MS,
  CT_CACHE_TTL_MS,
  CT_HEDGE_DELAY_MS,
  type CtCache,
  type CtLookup,
  type CtLookupOptions,
  createCtCache,
  createCtLookup,
} from './lookup.ts';
export type { CtAnswer, CtLookupOutcome, CtLookupResult } from './outcome.ts';
export { type CertificateFacts, readCertificate } from './x509.ts';
