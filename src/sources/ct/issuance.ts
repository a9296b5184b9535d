import { yieldToEventLoop } from '../json-array-slices.ts';

/**
 * The CT issuance both aggregators are reduced to (crt.sh rows, Cert Spotter objects), and the
 * name rules that decide whether an issuance covers a domain.
 */

/** One certificate issuance seen in CT; a precertificate and its final certificate are one issuance. */
export interface Issuance {
  /** Friendly issuer name, one per CA whichever source answered, e.g. `Let's Encrypt` (issuer-name.ts). */
  issuer: string;
  /** Issuer distinguished name as the source prints it, e.g. `C=US, O=Let's Encrypt, CN=R11`. */
  issuerDn: string;
  /** Lower-case hex serial; null when the source does not report it (Cert Spotter v1 does not). */
  serial: string | null;
  notBefore: Date;
  notAfter: Date;
  /** DNS names known for the certificate (no e-mail or organisation), lower case, sorted (crt.sh reports only the matched ones plus the CN). */
  names: string[];
  /** Earliest CT log entry time; null when the source does not say. */
  loggedAt: Date | null;
  /**
   * crt.sh certificate id (the row `id`, the final certificate's when both rows were seen), which
   * `?d=<id>` downloads; null from Cert Spotter.
   */
  crtshId: string | null;
  /** DER of the certificate or its precertificate when the source sent it (Cert Spotter `cert_der`), else null. */
  der: Uint8Array | null;
}

/**
 * Lower-case hex of a serial number without leading zero bytes: crt.sh may keep the `00` that DER
 * puts before a serial whose first byte is ≥ 0x80, the certificate itself always has it.
 */
export function canonicalSerial(hex: string): string {
  return hex.toLowerCase().replace(/^(00)+(?=[0-9a-f]{2})/, '');
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
  const packed = packedNames.get(issuance);
  if (packed === undefined) return issuance.names.some((name) => nameCovers(name, domain));
  const wildcard = coveringWildcard(domain);
  return packedHas(packed, domain) || (wildcard !== null && packedHas(packed, wildcard));
}

/** True when both issuances list the same names (each list is sorted and unique). */
export function sameNames(a: Issuance, b: Issuance): boolean {
  const packedA = packedNames.get(a);
  const packedB = packedNames.get(b);
  if (packedA !== undefined && packedB !== undefined) return packedA === packedB;
  const namesA = a.names;
  const namesB = b.names;
  return namesA.length === namesB.length && namesA.every((name, i) => name === namesB[i]);
}

/**
 * The names of issuances made by `withPackedNames`, one per line: one string per issuance instead
 * of one per name. Cert Spotter's pages at their cap carry ~770,000 names; kept as strings of their
 * own, every garbage collection while they are read copies or marks each one (scavenges of 25–50 ms,
 * a full collection of 77 ms measured in bench/README.md).
 */
const packedNames = new WeakMap<Issuance, string>();

/**
 * An issuance whose names (normalized: sorted, unique DNS names, so none holds a line break) are
 * kept packed in one string. `names` reads as a fresh array each time, which only the issuances a
 * result reports need; `issuanceCovers` and `sameNames` read the packed string.
 */
export function withPackedNames(issuance: Issuance): Issuance {
  const packed = issuance.names.join('\n');
  const packedIssuance: Issuance = { ...issuance };
  // Redefined in place, so the keys keep their order (JSON of a cached answer is unchanged).
  Object.defineProperty(packedIssuance, 'names', {
    enumerable: true,
    get: () => (packed === '' ? [] : packed.split('\n')),
  });
  packedNames.set(packedIssuance, packed);
  return packedIssuance;
}

/** True when `name` is one of the lines of `packed`. */
function packedHas(packed: string, name: string): boolean {
  for (let at = packed.indexOf(name); at !== -1; at = packed.indexOf(name, at + 1)) {
    const end = at + name.length;
    if ((at === 0 || packed[at - 1] === '\n') && (end === packed.length || packed[end] === '\n')) return true;
  }
  return false;
}

/** A DNS name as certificates carry it: LDH labels (underscore tolerated), optionally under `*.`, two labels at least. */
const DNS_NAME =
  /^(?:\*\.)?(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Dotted IPv4 (an iPAddress identity), which the DNS-name pattern would otherwise take. */
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/** True for a DNS name; false for an e-mail address, an organisation name, an IP address… */
export function isDnsName(name: string): boolean {
  return name.length <= 253 && DNS_NAME.test(name) && !IPV4.test(name);
}

/** Names normalized between two yields to the event loop: a few milliseconds' work. */
export const NAMES_PER_SLICE = 4_000;

/**
 * Normalizes the name lists of one answer, one list per call: the DNS names among them, lower case,
 * unique, sorted (crt.sh's `name_value` and `common_name` also carry e-mail addresses and
 * organisation names, which are not names a certificate can cover). It yields to the event loop
 * after every `NAMES_PER_SLICE` names across the calls: Cert Spotter's pages at their cap carry
 * close to a million names, over a second of work in one go.
 */
export function namesNormalizer(perSlice = NAMES_PER_SLICE): (names: Iterable<string>) => Promise<string[]> {
  let sinceYield = 0;
  return async (names) => {
    const kept = new Set<string>();
    for (const name of names) {
      if (++sinceYield >= perSlice) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
      const normal = name.trim().toLowerCase();
      if (isDnsName(normal)) kept.add(normal);
    }
    return [...kept].sort();
  };
}
