/**
 * Parsing one SPF record (RFC 7208 §4.6, §5, §6, ABNF in §12): its terms, qualifiers, the `all`
 * term, the redirect target and every syntax error found, each naming the offending term.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type SpfQualifier = '+' | '-' | '~' | '?';

export type SpfMechanismName = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';

export interface SpfMechanism {
  kind: 'mechanism';
  name: SpfMechanismName;
  qualifier: SpfQualifier;
  /** The domain-spec or network after `:`, without any CIDR suffix; null when absent. */
  target: string | null;
  text: string;
}

export interface SpfModifier {
  kind: 'modifier';
  name: string;
  value: string;
  text: string;
}

export interface ParsedSpf {
  terms: (SpfMechanism | SpfModifier)[];
  /** One sentence per problem, e.g. `unknown mechanism "inclde:_spf.google.com"`. */
  errors: string[];
  /** The `all` term as written with its qualifier made explicit (`-all`, `~all`, `?all`, `+all`). */
  all: string | null;
  redirect: string | null;
}

const MECHANISMS: readonly string[] = ['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists'];
/** Mechanisms that must have a `:domain-spec` (RFC 7208 §5.2, §5.7). */
const TARGET_REQUIRED: readonly string[] = ['include', 'exists', 'ip4', 'ip6'];
const MODIFIER_NAME = /^[a-z][a-z0-9_.-]*$/i;
/** macro-expand (RFC 7208 §7.1): `%{` letter digits `r`? delimiters `}`, or `%%`, `%_`, `%-`. */
const MACRO = /%(\{[slodiphcrtv]\d*r?[-.+,/_=]*\}|[%_-])/gi;
/** macro-expand inside a domain-spec, where c, r and t are not allowed (RFC 7208 §7.1). */
const DOMAIN_MACRO = /%(\{[slodiphv]\d*r?[-.+,/_=]*\}|[%_-])/gi;
/** domain-end as a macro-expand. */
const DOMAIN_END_MACRO = /%(\{[slodiphv]\d*r?[-.+,/_=]*\}|[%_-])$/i;
/** domain-end = "." toplabel ["."]; toplabel has a letter, or is alphanumerics joined by hyphens. */
const DOMAIN_END = /\.([a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])\.?$/i;
/** The dual-cidr-length at the end of an a or mx argument (RFC 7208 §5.6). */
const DUAL_CIDR_SUFFIX = /(?:\/\d+)?(?:\/\/\d+)?$/;

/** True when a TXT string is an SPF record: `v=spf1` then a space or the end (RFC 7208 §4.5). */
export function isSpfRecord(text: string): boolean {
  return /^v=spf1( |$)/i.test(text);
}

/** Parses an SPF record; never throws. The record is assumed to start with `v=spf1`. */
export function parseSpf(record: string): ParsedSpf {
  const errors: string[] = [];
  const terms: ParsedSpf['terms'] = [];
  const words = record.trim().split(/ +/).slice(1);
  for (const text of words) {
    const term = parseTerm(text, errors);
    if (term) terms.push(term);
  }
  const modifiers = terms.filter((term): term is SpfModifier => term.kind === 'modifier');
  for (const name of ['redirect', 'exp']) {
    // RFC 7208 §6: each of these modifiers may appear at most once.
    if (modifiers.filter((modifier) => modifier.name === name).length > 1)
      errors.push(`"${name}" appears more than once`);
  }
  const allTerm = terms.find(
    (term): term is SpfMechanism => term.kind === 'mechanism' && term.name === 'all',
  );
  return {
    terms,
    errors,
    all: allTerm ? `${allTerm.qualifier}all` : null,
    redirect: modifiers.find((modifier) => modifier.name === 'redirect')?.value ?? null,
  };
}

function parseTerm(text: string, errors: string[]): SpfMechanism | SpfModifier | null {
  const modifier = /^([^:/=]+)=(.*)$/.exec(text);
  if (modifier?.[1] && modifier[2] !== undefined) {
    const name = modifier[1].toLowerCase();
    const value = modifier[2];
    if (!MODIFIER_NAME.test(name)) errors.push(`invalid modifier name in "${text}"`);
    else if ((name === 'redirect' || name === 'exp') && !isDomainSpec(value))
      errors.push(`invalid domain in "${text}"`);
    else if (!isMacroString(value)) errors.push(`invalid macro in "${text}"`);
    return { kind: 'modifier', name, value, text };
  }
  const match = /^([+\-~?]?)([a-z0-9]+)(.*)$/i.exec(text);
  const name = match?.[2]?.toLowerCase() ?? '';
  if (!match || !MECHANISMS.includes(name)) {
    errors.push(`unknown mechanism "${text}"`);
    return null;
  }
  const qualifier = (match[1] || '+') as SpfQualifier;
  const rest = match[3] ?? '';
  const mechanism: SpfMechanism = {
    kind: 'mechanism',
    name: name as SpfMechanismName,
    qualifier,
    target: null,
    text,
  };
  const problem = argumentProblem(mechanism.name, rest, mechanism);
  if (problem) errors.push(`${problem} in "${text}"`);
  return mechanism;
}

/** Checks what follows the mechanism name; fills `target`; returns a problem or null. */
function argumentProblem(name: SpfMechanismName, rest: string, mechanism: SpfMechanism): string | null {
  if (name === 'all') return rest === '' ? null : '"all" takes no argument';
  if (rest === '' || rest.startsWith('/')) {
    if (TARGET_REQUIRED.includes(name)) return `"${name}" needs a value`;
    return name === 'a' || name === 'mx' ? dualCidrProblem(rest) : rest ? 'unexpected CIDR' : null;
  }
  if (!rest.startsWith(':')) return 'unexpected text after the mechanism name';
  const value = rest.slice(1);
  if (name === 'ip4' || name === 'ip6') {
    const [address = '', prefix, ...extra] = value.split('/');
    mechanism.target = address;
    const valid = name === 'ip4' ? isIPv4(address) : isIPv6(address);
    if (!valid) return `invalid ${name === 'ip4' ? 'IPv4' : 'IPv6'} address`;
    if (extra.length > 0 || (prefix !== undefined && !isPrefix(prefix, name === 'ip4' ? 32 : 128))) {
      return 'invalid prefix length';
    }
    return null;
  }
  // A domain-spec may hold "/" and ":" (macro-literal, RFC 7208 §7.1), so only a trailing
  // dual-cidr-length is a CIDR, and only a and mx take one; elsewhere it stays in the domain.
  const cidr = name === 'a' || name === 'mx' ? (DUAL_CIDR_SUFFIX.exec(value)?.[0] ?? '') : '';
  const domain = value.slice(0, value.length - cidr.length);
  mechanism.target = domain;
  if (!isDomainSpec(domain)) return 'invalid domain';
  return cidr === '' ? null : dualCidrProblem(cidr);
}

/** `/n`, `//m` or `/n//m` (RFC 7208 §5.6). */
function dualCidrProblem(cidr: string): string | null {
  const match = /^(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(cidr);
  if (!match) return 'invalid CIDR';
  if (match[1] !== undefined && !isPrefix(match[1], 32)) return 'invalid prefix length';
  if (match[2] !== undefined && !isPrefix(match[2], 128)) return 'invalid prefix length';
  return null;
}

/** ip4-cidr-length / ip6-cidr-length: decimal without a leading zero, at most `max` (RFC 7208 §12). */
function isPrefix(text: string, max: number): boolean {
  return /^(0|[1-9]\d{0,2})$/.test(text) && Number(text) <= max;
}

/** Whether `value` expands macros (then it cannot be resolved without the client's address). */
export function hasMacro(value: string): boolean {
  return value.includes('%');
}

/** macro-string: visible ASCII where every `%` starts a valid macro-expand (RFC 7208 §7.1). */
function isMacroString(value: string, macro: RegExp = MACRO): boolean {
  const stripped = value.replace(macro, '');
  return !stripped.includes('%') && /^[\x21-\x7e]*$/.test(stripped);
}

/**
 * domain-spec = macro-string domain-end, domain-end = "." toplabel ["."] / macro-expand (RFC 7208
 * §7.1), with the letters c, r and t left out (they belong to explanation text only, §7.1). A name
 * without macros must also be one DNS can ask for (RFC 1035 §2.3.4: no empty label, labels of at
 * most 63 octets, 253 in all); RFC 7208 leaves that case undefined, and receivers reject it.
 */
function isDomainSpec(value: string): boolean {
  if (value === '' || !isMacroString(value, DOMAIN_MACRO)) return false;
  if (DOMAIN_END_MACRO.test(value)) return true;
  if (!DOMAIN_END.test(value)) return false;
  if (hasMacro(value)) return true;
  const name = value.replace(/\.$/, '');
  return name.length <= 253 && name.split('.').every((label) => label.length > 0 && label.length <= 63);
}
