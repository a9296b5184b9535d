/**
 * ARI for the certificate a check judges. The CertID comes from the certificate itself, from the
 * cheapest true source: the served leaf (Node), the DER a CT source sent, or CT's serial with the
 * issuer's key identifier remembered from any certificate of that issuer read before (the AKI is
 * the same for every leaf of one intermediate); only then the certificate's bytes from CT.
 * On Node the served leaf is asked about before CT answers, and that answer is used when the leaf
 * is the newest issuance. Expired certificates are not asked (RFC 9773 §4.3).
 */
import { LRUCache } from 'lru-cache';
import type { CertificateDer } from '../ct/certificate-der.ts';
import type { Issuance } from '../ct/issuance.ts';
import { issuerDnKey, issuerFriendlyName } from '../ct/issuer-name.ts';
import { type CertificateFacts, readCertificate } from '../ct/x509.ts';
import { certIdOf, serialContentFromHex } from './cert-id.ts';
import { acmeCaOf } from './acme-cas.ts';
import type { AriAnswer, AriClient } from './renewal-info.ts';

/** Least time worth asking in, in milliseconds. */
export const ARI_MIN_ASK_MS = 50;
/** Most issuers whose key identifier is remembered. */
export const ISSUER_KEYS_MAX = 1_000;

/** What ARI said about one certificate, and which (its CertID; null when it could not be computed). */
export interface AriOutcome extends AriAnswer {
  certId: string | null;
}

/** The served leaf, read, with ARI already asked about it. */
export interface EarlyAri {
  leaf: CertificateFacts;
  answer: Promise<AriOutcome>;
}

export interface AriLookup {
  /** Asks about the served leaf at once (and learns its issuer's key identifier). */
  aboutLeaf(leaf: CertificateFacts, now: Date, budgetMs: number): EarlyAri;
  /** Asks about `issuance`, reusing `early` when the served leaf is that certificate. */
  aboutIssuance(issuance: Issuance, now: Date, budgetMs: number, early: EarlyAri | null): Promise<AriOutcome>;
  /**
   * Whether asking about `issuance` needs nothing the served leaf could teach: its CertID is known
   * without it (its bytes, or its serial and a remembered issuer key), or the CA is not asked.
   */
  needsNoLeaf(issuance: Issuance, now: Date): boolean;
}

export interface AriLookupOptions {
  client: AriClient;
  /** Where a certificate's bytes come from when nothing cheaper gives its CertID (crt.sh `?d=`). */
  certificateDer?: CertificateDer;
  /** Monotonic clock in milliseconds. */
  clock?: () => number;
}

export function createAriLookup(options: AriLookupOptions): AriLookup {
  const clock = options.clock ?? (() => performance.now());
  const issuerKeys = new LRUCache<string, Uint8Array>({ max: ISSUER_KEYS_MAX });

  /** The CertID of a read certificate, its issuer's key identifier remembered on the way. */
  const idOf = (facts: CertificateFacts | null) => {
    if (!facts?.authorityKeyId) return null;
    issuerKeys.set(issuerDnKey(facts.issuerDn), facts.authorityKeyId);
    return certIdOf(facts.authorityKeyId, facts.serialNumber);
  };
  const idOfDer = (der: Uint8Array | null) => (der ? idOf(readCertificate(der)) : null);

  const ask = async (issuer: string, certId: string | null, budgetMs: number): Promise<AriOutcome> => {
    // Too little of the check's budget left for a round trip: not asked (and nothing kept).
    if (certId === null || budgetMs < ARI_MIN_ASK_MS) return { ...notAsked(issuer, 'unavailable'), certId };
    return { ...(await options.client.ask(issuer, certId, budgetMs)), certId };
  };

  /** The CertID of `issuance` without fetching anything, or null. */
  const cheapCertId = (issuance: Issuance, early: EarlyAri | null) => {
    if (issuance.der) return idOfDer(issuance.der);
    if (early && isSameCertificate(early.leaf, issuance)) return idOf(early.leaf);
    const key = issuerKeys.get(issuerDnKey(issuance.issuerDn));
    const serial = issuance.serial === null ? null : serialContentFromHex(issuance.serial);
    return key && serial ? certIdOf(key, serial) : null;
  };

  return {
    aboutLeaf(leaf, now, budgetMs) {
      const issuer = issuerFriendlyName(leaf.issuerDn);
      // A CA without ARI is `not_supported` whether or not the certificate has expired.
      const answer = !options.client.supports(issuer)
        ? Promise.resolve({ ...notAsked(issuer, 'not_supported'), certId: idOf(leaf) })
        : leaf.notAfter <= now
          ? Promise.resolve(expired(issuer, idOf(leaf)))
          : ask(issuer, idOf(leaf), budgetMs);
      return { leaf, answer };
    },
    needsNoLeaf(issuance, now) {
      return (
        issuance.notAfter <= now ||
        !options.client.supports(issuance.issuer) ||
        issuance.der !== null ||
        (issuance.serial !== null && issuerKeys.has(issuerDnKey(issuance.issuerDn)))
      );
    },
    async aboutIssuance(issuance, now, budgetMs, early) {
      const started = clock();
      if (early && isSameCertificate(early.leaf, issuance)) return early.answer;
      let certId = cheapCertId(issuance, early);
      if (!options.client.supports(issuance.issuer))
        return { ...notAsked(issuance.issuer, 'not_supported'), certId };
      if (issuance.notAfter <= now) return expired(issuance.issuer, certId);
      if (certId === null && options.certificateDer && budgetMs >= ARI_MIN_ASK_MS) {
        // The issuer's key is learnt when the bytes arrive, even after this check stopped waiting.
        const learning = options.certificateDer(issuance).then(idOfDer);
        certId = await withinMs(learning, budgetMs);
      }
      return ask(issuance.issuer, certId, budgetMs - (clock() - started));
    },
  };
}

/** Same issuer and serial: a precertificate and its certificate, or the leaf a site serves. */
function isSameCertificate(leaf: CertificateFacts, issuance: Issuance): boolean {
  return (
    issuance.serial !== null &&
    leaf.serial === issuance.serial &&
    issuerDnKey(leaf.issuerDn) === issuerDnKey(issuance.issuerDn)
  );
}

function notAsked(issuer: string, status: 'unavailable' | 'not_supported' | 'not_found'): AriAnswer {
  return { status, ca: acmeCaOf(issuer), window: null, explanationUrl: null, checkedAt: null, call: null };
}

/** An expired certificate: the CA no longer knows it for ARI, so it is not asked. */
function expired(issuer: string, certId: string | null): AriOutcome {
  return { ...notAsked(issuer, 'not_found'), certId };
}

/** `pending`, or null once `ms` have passed. */
async function withinMs<T>(pending: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, ms));
  });
  try {
    return await Promise.race([pending.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}
