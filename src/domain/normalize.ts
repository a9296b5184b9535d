/**
 * Domain validation and normalization (docs/checks/validation.md): one function used by the free
 * validate route and, before any payment logic, by every paid route and tool.
 */
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { parse } from 'tldts';
import { hostFromInput, unbracket } from './host-input.ts';
import {
  MAX_DOMAIN_LENGTH,
  MAX_LABEL_LENGTH,
  asciiToUnicode,
  lookupToAscii,
  mappedOnly,
  withoutRootDot,
} from './idna.ts';
import {
  INVALID_REASON_CODES,
  type InvalidReason,
  type InvalidReasonCode,
  invalidReason,
} from './invalid-reasons.ts';

export { MAX_DOMAIN_LENGTH, MAX_LABEL_LENGTH } from './idna.ts';

/** Longest `domain` input accepted at all; longer input is a 400 even on the free route. */
export const MAX_INPUT_LENGTH = 2048;

/** A domain that passed validation. */
export interface ValidDomain {
  /** ASCII (A-label) form, lower case, no trailing dot. */
  domain: string;
  /** Unicode (U-label) form. */
  unicode: string;
  registrableDomain: string;
  publicSuffix: string;
  /** True when `domain` is its own registrable domain. */
  isApex: boolean;
}

export type DomainCheck = ({ valid: true } & ValidDomain) | { valid: false; reason: InvalidReason };

/** Letters, digits, hyphens; no hyphen at either end (RFC 1123 §2.1, RFC 5890 §2.3.1). */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/**
 * A label the WHATWG URL parser reads as a number ("ends in a number checker"): a name whose last
 * label is one is an IPv4 address in some spelling (127.1, 0x7f.1, 2130706433) or nothing at all.
 */
const NUMBER_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
/** Printable ASCII other than letters, digits, `-` and `.` (controls are refused earlier). */
const ASCII_OUTSIDE_LDH = /[\u0020-\u002c\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007e]/;
const NON_ASCII = /\P{ASCII}/u;

/**
 * Special-use and reserved top-level names: RFC 6761 (localhost, test, invalid,
 * example), RFC 6762 (local), RFC 7686 (onion), RFC 9476 (alt), ICANN's private-use `internal`, and
 * `arpa`, the infrastructure domain. tldts' `detectSpecialUse` is not used: it also refuses
 * example.com, a real delegated domain, and misses `internal` and most of `arpa`.
 */
const RESERVED_TLDS: ReadonlySet<string> = new Set([
  'local',
  'localhost',
  'test',
  'invalid',
  'example',
  'onion',
  'internal',
  'arpa',
  'alt',
]);

function refuse(code: InvalidReasonCode, message: string): DomainCheck {
  return { valid: false, reason: invalidReason(code, message) };
}

/**
 * Validates and normalizes a bare hostname or a URL (scheme, user info, port, path, query and
 * fragment are dropped). Never throws. A valid result is lower-case ASCII (IDNA2008 lookup through
 * UTS #46, see idna.ts) without the root dot, with its Unicode form, its registrable domain and its
 * ICANN public suffix; private PSL entries (github.io…) do not count. An invalid result carries a
 * stable `reason.code` from INVALID_REASON_CODES.
 *
 * @example normalizeDomain('https://user@Bücher.DE:8443/x?y') // → { valid: true, domain: 'xn--bcher-kva.de', unicode: 'bücher.de', … }
 */
export function normalizeDomain(input: string): DomainCheck {
  let check = recent.get(input);
  if (check === undefined) {
    check = Object.freeze(normalizeUncached(input));
    recent.set(input, check);
  }
  return check;
}

/**
 * Recent answers by input: normalizing (URL parsing, UTS #46, the public suffix list) costs tens of
 * microseconds, more than the rest of a validate request, and agents ask about the same names again.
 */
const recent = new LRUCache<string, DomainCheck>({ max: 2048 });

function normalizeUncached(input: string): DomainCheck {
  const extracted = hostFromInput(input);
  if (!extracted.ok) return { valid: false, reason: extracted.reason };
  const { host } = extracted;
  if (isIP(unbracket(host)) !== 0) return refuseIpLiteral();

  const ascii = lookupToAscii(host);
  if (ascii === null) return explainRefusal(host);
  return refuseNumeric(ascii) ?? classify(ascii);
}

function refuseIpLiteral(): DomainCheck {
  return refuse(INVALID_REASON_CODES.ipLiteral, 'IP addresses are not accepted; give a domain name.');
}

/** An IPv4 address in any spelling (127.1, 2130706433, 999.1.1.1), or a numeric TLD; else null. */
function refuseNumeric(ascii: string): DomainCheck | null {
  const labels = ascii.split('.');
  if (!NUMBER_LABEL.test(labels.at(-1) ?? '')) return null;
  if (labels.every((label) => NUMBER_LABEL.test(label))) return refuseIpLiteral();
  return refuse(
    INVALID_REASON_CODES.undelegatedTld,
    'The top-level domain is numeric, and no such TLD exists.',
  );
}

/** Why the IDNA layer refused `host`: the most specific reason code that applies. */
function explainRefusal(host: string): DomainCheck {
  const mapped = mappedOnly(host);
  if (mapped !== null) {
    return refuseMalformed(withoutRootDot(mapped)) ?? refuseInvalidIdn();
  }
  if (ASCII_OUTSIDE_LDH.test(host)) {
    return refuse(
      INVALID_REASON_CODES.invalidCharacters,
      'The domain contains characters other than letters, digits, hyphens and dots.',
    );
  }
  if (NON_ASCII.test(host)) return refuseInvalidIdn();
  // All-ASCII input fails UTS #46 mapping only through an `xn--` label that is not Punycode.
  return (
    refuseMalformed(withoutRootDot(host.toLowerCase())) ??
    refuse(INVALID_REASON_CODES.invalidIdn, 'A label starting with xn-- is not valid Punycode (RFC 3492).')
  );
}

function refuseInvalidIdn(): DomainCheck {
  return refuse(
    INVALID_REASON_CODES.invalidIdn,
    'The internationalized domain name is not valid under IDNA2008 (UTS #46 lookup rules).',
  );
}

/** Empty, length, empty-label and LDH rules on a mapped ASCII name; null when well formed. */
function refuseMalformed(ascii: string): DomainCheck | null {
  if (ascii === '') return refuse(INVALID_REASON_CODES.empty, 'The domain is empty.');
  if (ascii.length > MAX_DOMAIN_LENGTH) {
    return refuse(
      INVALID_REASON_CODES.tooLong,
      `The domain is ${ascii.length} characters long in ASCII form; at most ${MAX_DOMAIN_LENGTH} are allowed.`,
    );
  }
  const labels = ascii.split('.');
  if (labels.includes('')) {
    return refuse(
      INVALID_REASON_CODES.emptyLabel,
      'The domain has an empty label (a leading dot or two dots in a row).',
    );
  }
  const long = labels.find((label) => label.length > MAX_LABEL_LENGTH);
  if (long !== undefined) {
    return refuse(
      INVALID_REASON_CODES.labelTooLong,
      `A label of the domain is ${long.length} characters long; at most ${MAX_LABEL_LENGTH} are allowed.`,
    );
  }
  if (!labels.every((label) => LDH_LABEL.test(label))) {
    return refuse(
      INVALID_REASON_CODES.invalidCharacters,
      'Each label may hold only letters, digits and hyphens, and may not start or end with a hyphen.',
    );
  }
  return null;
}

/** Reserved, public-suffix, single-label and TLD rules on a well-formed ASCII domain. */
function classify(ascii: string): DomainCheck {
  if (ascii === 'localhost') {
    return refuse(INVALID_REASON_CODES.localhost, 'localhost names this machine and cannot be checked.');
  }
  const tld = ascii.slice(ascii.lastIndexOf('.') + 1);
  if (RESERVED_TLDS.has(tld)) {
    return refuse(
      INVALID_REASON_CODES.reservedName,
      `.${tld} is reserved for special use and is not a public domain.`,
    );
  }
  const parsed = parse(ascii, { allowPrivateDomains: false });
  if (parsed.isIcann === true && parsed.publicSuffix === ascii) {
    return refuse(
      INVALID_REASON_CODES.publicSuffix,
      `${ascii} is a public suffix, under which others register domains; give a domain under it.`,
    );
  }
  if (!ascii.includes('.')) {
    return refuse(
      INVALID_REASON_CODES.singleLabel,
      'The domain has a single label; give a full domain such as example.com.',
    );
  }
  if (parsed.isIcann !== true || parsed.domain === null || parsed.publicSuffix === null) {
    return refuse(
      INVALID_REASON_CODES.undelegatedTld,
      `The top-level domain .${tld} is not delegated in the DNS root.`,
    );
  }
  return {
    valid: true,
    domain: ascii,
    unicode: asciiToUnicode(ascii),
    registrableDomain: parsed.domain,
    publicSuffix: parsed.publicSuffix,
    isApex: parsed.domain === ascii,
  };
}
