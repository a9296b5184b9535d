/**
 * The CT issuance both aggregators are reduced to (crt.sh rows, Cert Spotter objects), and the
 * name rules that decide whether an issuance covers a domain.
 */

/** One certificate issuance seen in CT; a precertificate and its final certificate are one issuance. */
export interface Issuance {
  /** Friendly issuer name, e.g. `Let's Encrypt` (the issuer DN's organisation). */
  issuer: string;
  /** Issuer distinguished name as the source prints it, e.g. `C=US, O=Let's Encrypt, CN=R11`. */
  issuerDn: string;
  /** Lower-case hex serial; null when the source does not report it (Cert Spotter v1 does not). */
  serial: string | null;
  notBefore: Date;
  notAfter: Date;
  /** DNS names known for the certificate, lower case, sorted (crt.sh reports only the matched ones plus the CN). */
  names: string[];
  /** Earliest CT log entry time; null when the source does not say. */
  loggedAt: Date | null;
}

/** The wildcard name that would cover `domain` (`*.parent`), or null for a name with no parent below the TLD. */
export function coveringWildcard(domain: string): string | null {
  const dot = domain.indexOf('.');
  const parent = domain.slice(dot + 1);
  // A wildcard over a bare TLD (`*.com`) is never issued, so an apex has no covering wildcard.
  return dot > 0 && parent.includes('.') ? `*.${parent}` : null;
}

/** True when `name` is `domain` itself or the wildcard one level up (RFC 6125 §6.4.3: `*` spans one label). */
export function nameCovers(name: string, domain: string): boolean {
  return name === domain || name === coveringWildcard(domain);
}

/** True when any of the issuance's names covers `domain`. */
export function issuanceCovers(issuance: Issuance, domain: string): boolean {
  return issuance.names.some((name) => nameCovers(name, domain));
}

/**
 * The friendly issuer name from a DN in crt.sh / OpenSSL print order: the `O=` value (quotes
 * removed, as crt.sh quotes values with commas), else the `CN=` value, else the whole DN.
 */
export function issuerFriendlyName(issuerDn: string): string {
  const attributes = new Map<string, string>();
  for (const match of issuerDn.matchAll(/(?:^|,)\s*([A-Za-z.0-9]+)=("(?:[^"]|"")*"|[^,]*)/g)) {
    const [, key = '', raw = ''] = match;
    const value = raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw;
    if (!attributes.has(key.toUpperCase())) attributes.set(key.toUpperCase(), value.trim());
  }
  return attributes.get('O') || attributes.get('CN') || issuerDn;
}

/** Unique lower-case names, sorted. */
export function normalizeNames(names: Iterable<string>): string[] {
  return [...new Set([...names].map((name) => name.trim().toLowerCase()).filter(Boolean))].sort();
}
