/**
 * The IDNA layer of validation: UTS #46 ToASCII with the IDNA2008 lookup profile, via `tr46`
 * (plain JavaScript and data tables, no Node-only API, so it also runs on Workers).
 *
 * Profile: non-transitional, UseSTD3ASCIIRules, CheckBidi across every label (RFC 5893),
 * CheckJoiners (RFC 5892 ContextJ) and VerifyDnsLength; it agrees with every line of UTS #46
 * `IdnaTestV2.txt` (the Unicode version of tr46 and of the test fixture move together) except two
 * documented deviations:
 * - one trailing root dot is accepted and dropped (`example.com.` names the same domain);
 * - `--` in the third and fourth positions is accepted in an all-ASCII label that is not an A-label
 *   (RFC 5890 "R-LDH" labels exist in the DNS, e.g. `r3---sn-abc.googlevideo.com`), but refused in
 *   a U-label (RFC 5891 §4.2.3.1). A label that starts or ends with `-` is refused in both forms.
 */
import { type Options, toASCII, toUnicode } from 'tr46';

/** UTS #46 flags of the lookup profile; CheckHyphens is applied below (see the module comment). */
const LOOKUP: Options = {
  transitionalProcessing: false,
  useSTD3ASCIIRules: true,
  checkBidi: true,
  checkJoiners: true,
  checkHyphens: false,
};

/** UTS #46 mapping only: used to explain a refusal, never to accept a name. */
const MAPPING_ONLY: Options = { transitionalProcessing: false };

/** Longest domain in text form, without the root dot (RFC 1035 §2.3.4: 255 octets on the wire). */
export const MAX_DOMAIN_LENGTH = 253;
/** Longest label (RFC 1035 §2.3.4). */
export const MAX_LABEL_LENGTH = 63;

/** The name without one trailing root dot (RFC 1034 §3.1); IDNA may have made it from `。`. */
export function withoutRootDot(name: string): string {
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function isALabel(label: string): boolean {
  return label.startsWith('xn--');
}

/** CheckHyphens on the U-label form, relaxed for R-LDH ASCII labels (see the module comment). */
function hyphensAllowed(uLabel: string, aLabel: string): boolean {
  if (uLabel.startsWith('-') || uLabel.endsWith('-')) return false;
  return !(isALabel(aLabel) && uLabel.slice(2, 4) === '--');
}

/**
 * The A-label form of `host` (lower case, no root dot) under the lookup profile, or null when IDNA
 * refuses it: disallowed code points, bad Punycode, Bidi or ContextJ violations, misplaced
 * hyphens, an empty label, a label over 63 or a name over 253 octets.
 */
export function lookupToAscii(host: string): string | null {
  const mapped = toASCII(host, LOOKUP);
  if (mapped === null) return null;
  const ascii = withoutRootDot(mapped);
  if (ascii.length === 0 || ascii.length > MAX_DOMAIN_LENGTH) return null;
  const aLabels = ascii.split('.');
  const uLabels = toUnicode(ascii, LOOKUP).domain.split('.');
  const fits = aLabels.every(
    (label, i) =>
      label.length > 0 && label.length <= MAX_LABEL_LENGTH && hyphensAllowed(uLabels[i] ?? '', label),
  );
  return fits ? ascii : null;
}

/** The U-label form of an ASCII name that `lookupToAscii` accepted. */
export function asciiToUnicode(ascii: string): string {
  return toUnicode(ascii, LOOKUP).domain;
}

/**
 * `host` after UTS #46 mapping alone (case folding, width, `。`, Punycode of non-ASCII labels),
 * without the profile's checks; null when even mapping fails (disallowed code point, bad Punycode).
 * Used only to name the reason of a refusal.
 */
export function mappedOnly(host: string): string | null {
  return toASCII(host, MAPPING_ONLY);
}
