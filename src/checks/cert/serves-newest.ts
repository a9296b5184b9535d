/**
 * Renewed but not deployed: whether the leaf a site serves is the newest trusted certificate CT
 * holds for the name. Serials are compared canonically (no leading zero bytes) with the issuing CA,
 * so a precertificate in CT and the final certificate served are one issuance.
 */
import { canonicalSerial, type Issuance, issuanceCovers } from '../../sources/ct/issuance.ts';
import { issuerFriendlyName } from '../../sources/ct/issuer-name.ts';

const HOUR_MS = 3_600_000;
/**
 * How long after its issuance a newer certificate may still be waiting to be deployed: renewal
 * hooks reload the server within minutes, a weekly cron or a load balancer's own import may lag
 * a few hours. Only a successor older than this makes `serves_newest` false.
 */
export const DEPLOY_GRACE_MS = 6 * HOUR_MS;
/**
 * Certificates issued this close to the served one belong to the same renewal (an ECDSA and an RSA
 * certificate issued together, of which a client sees one), so neither is the other's successor.
 */
export const SAME_RENEWAL_MS = 6 * HOUR_MS;

/** What is compared of the served leaf (read from its DER). */
export interface ServedCertificate {
  /** Hex serial; leading zero bytes are ignored. */
  serial: string;
  issuerDn: string;
  notBefore: Date;
  notAfter: Date;
  /** DNS names of its subjectAltName, lower case, when read. */
  names?: string[];
}

export interface ServedComparison {
  /** `live_probe.serves_newest`. */
  servesNewest: boolean | null;
  /** The newest successor of the served certificate past the grace period, when `servesNewest` is false. */
  successor: Issuance | null;
}

/**
 * Compares the served leaf with the trusted CT issuances covering `domain`, at `now`: false when a
 * successor issued more than `DEPLOY_GRACE_MS` ago exists, true when none exists and CT holds the
 * served certificate, null otherwise (no leaf, a successor still within the grace period, or a
 * served certificate CT does not show, or a newer certificate of another CA).
 */
export function compareServed(
  served: ServedCertificate | null,
  trusted: readonly Issuance[],
  domain: string,
  now: Date,
): ServedComparison {
  const unknown = { servesNewest: null, successor: null };
  if (!served) return unknown;
  const covering = trusted.filter((issuance) => issuanceCovers(issuance, domain));
  const newer = covering.filter(
    (issuance) => issuance.notBefore.getTime() > served.notBefore.getTime() + SAME_RENEWAL_MS,
  );
  // A successor comes from the served certificate's own CA: a CDN keeps backup certificates of
  // another CA in CT that it never serves (Cloudflare's Universal SSL does), and an origin behind a
  // CDN has its own. Those make the answer unknown, never "not deployed".
  const servedCa = issuerFriendlyName(served.issuerDn);
  const due = newer
    .filter((issuance) => issuerFriendlyName(issuance.issuerDn) === servedCa)
    .filter((issuance) => issuedAt(issuance) <= now.getTime() - DEPLOY_GRACE_MS)
    .sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime());
  const [successor] = due;
  if (successor) return { servesNewest: false, successor };
  if (newer.length > 0) return unknown;
  return covering.some((issuance) => isServed(issuance, served))
    ? { servesNewest: true, successor: null }
    : unknown;
}

/** When CT first saw the issuance, else its notBefore. */
function issuedAt(issuance: Issuance): number {
  return (issuance.loggedAt ?? issuance.notBefore).getTime();
}

/**
 * Same CA and serial; a source without serials (Cert Spotter without its DER) falls back to the
 * validity period, which a CA does not repeat for one name to the second.
 */
export function isServed(issuance: Issuance, served: ServedCertificate): boolean {
  if (issuerFriendlyName(issuance.issuerDn) !== issuerFriendlyName(served.issuerDn)) return false;
  if (issuance.serial !== null) return canonicalSerial(issuance.serial) === canonicalSerial(served.serial);
  return (
    issuance.notBefore.getTime() === served.notBefore.getTime() &&
    issuance.notAfter.getTime() === served.notAfter.getTime()
  );
}
