/**
 * Which addresses the service may connect to (SSRF guard), shared by the live probe and every
 * steered fetch: everything in the IANA IPv4 and IPv6 special-purpose registries (RFC 6890) and the
 * cloud metadata endpoints is refused.
 */
import { BlockList, isIP } from 'node:net';

/** The verdict for one address. `range` names the refusing block, e.g. `127.0.0.0/8 loopback`. */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string; metadata?: true };

type Family = 'ipv4' | 'ipv6';

interface Rule {
  cidr: string;
  label: string;
  metadata?: true;
  list: BlockList;
}

function rule(family: Family, cidr: string, label: string, metadata?: true): Rule {
  const [network = '', prefix = ''] = cidr.split('/');
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), family);
  return metadata ? { cidr, label, metadata, list } : { cidr, label, list };
}

// More specific blocks come first so the reported range is the narrowest one.
const IPV4_RULES: readonly Rule[] = [
  rule('ipv4', '169.254.169.254/32', 'cloud metadata (AWS/GCP/Azure/OCI)', true),
  rule('ipv4', '100.100.100.200/32', 'cloud metadata (Alibaba)', true),
  rule('ipv4', '168.63.129.16/32', 'cloud metadata (Azure WireServer)', true),
  rule('ipv4', '255.255.255.255/32', 'limited broadcast'),
  rule('ipv4', '0.0.0.0/8', '"this network"'),
  rule('ipv4', '10.0.0.0/8', 'private'),
  rule('ipv4', '100.64.0.0/10', 'shared address space (CGNAT)'),
  rule('ipv4', '127.0.0.0/8', 'loopback'),
  rule('ipv4', '169.254.0.0/16', 'link-local'),
  rule('ipv4', '172.16.0.0/12', 'private'),
  rule('ipv4', '192.0.0.0/24', 'IETF protocol assignments'),
  rule('ipv4', '192.0.2.0/24', 'documentation (TEST-NET-1)'),
  rule('ipv4', '192.88.99.0/24', '6to4 relay anycast (deprecated)'),
  rule('ipv4', '192.168.0.0/16', 'private'),
  rule('ipv4', '198.18.0.0/15', 'benchmarking'),
  rule('ipv4', '198.51.100.0/24', 'documentation (TEST-NET-2)'),
  rule('ipv4', '203.0.113.0/24', 'documentation (TEST-NET-3)'),
  rule('ipv4', '224.0.0.0/4', 'multicast'),
  rule('ipv4', '240.0.0.0/4', 'reserved'),
];

const IPV6_RULES: readonly Rule[] = [
  rule('ipv6', 'fd00:ec2::254/128', 'cloud metadata (AWS IMDS)', true),
  rule('ipv6', '::/128', 'unspecified'),
  rule('ipv6', '::1/128', 'loopback'),
  rule('ipv6', '::/96', 'IPv4-compatible (deprecated)'),
  rule('ipv6', '64:ff9b:1::/48', 'local-use NAT64'),
  rule('ipv6', '100::/64', 'discard-only'),
  rule('ipv6', '2001::/32', 'Teredo'),
  rule('ipv6', '2001::/23', 'IETF protocol assignments'),
  rule('ipv6', '2001:db8::/32', 'documentation'),
  rule('ipv6', '2002::/16', '6to4 (deprecated)'),
  rule('ipv6', '3fff::/20', 'documentation'),
  rule('ipv6', '5f00::/16', 'SRv6 SIDs'),
  rule('ipv6', 'fc00::/7', 'unique local'),
  rule('ipv6', 'fe80::/10', 'link-local'),
  rule('ipv6', 'fec0::/10', 'site-local (deprecated)'),
  rule('ipv6', 'ff00::/8', 'multicast'),
];

// Only 2000::/3 is allocated for global unicast (RFC 4291 §2.4); anything else is refused.
const GLOBAL_UNICAST = rule('ipv6', '2000::/3', 'global unicast');
// Prefixes whose low 32 bits carry an IPv4 address that decides the verdict.
const IPV4_MAPPED = rule('ipv6', '::ffff:0:0/96', 'IPv4-mapped'); // RFC 4291 §2.5.5.2
const NAT64_WELL_KNOWN = rule('ipv6', '64:ff9b::/96', 'NAT64'); // RFC 6052 §2.1

function firstMatch(rules: readonly Rule[], ip: string, family: Family): Rule | undefined {
  return rules.find((candidate) => candidate.list.check(ip, family));
}

function refused(matched: Rule, prefix = ''): AddressVerdict {
  const range = `${prefix}${matched.cidr} ${matched.label}`;
  return matched.metadata ? { allowed: false, range, metadata: true } : { allowed: false, range };
}

function classifyV4(ip: string): AddressVerdict {
  const matched = firstMatch(IPV4_RULES, ip, 'ipv4');
  return matched ? refused(matched) : { allowed: true };
}

/**
 * The eight 16-bit words of an IPv6 address that `net.isIP` accepts (any spelling: compressed,
 * expanded, upper case, a dotted IPv4 tail; no zone id). Read character by character: `isIP` has
 * vouched for the syntax already, and the free-work limit reads one address per request (the URL
 * parser, or splitting into strings, costs microseconds).
 */
export function ipv6Words(ip: string): number[] {
  const words = [0, 0, 0, 0, 0, 0, 0, 0];
  let count = 0;
  let gapAt = -1;
  let word = 0;
  let digits = 0;
  for (let i = 0; i < ip.length; i += 1) {
    const ch = ip.charCodeAt(i);
    if (ch === COLON) {
      if (digits > 0) words[count++] = word;
      else if (i > 0) gapAt = count; // the second colon of `::`
      word = 0;
      digits = 0;
    } else if (ch === DOT) {
      // A dotted IPv4 tail: its four octets are the last two words.
      const [a = 0, b = 0, c = 0, d = 0] = ip
        .slice(i - digits)
        .split('.')
        .map(Number);
      words[count++] = (a << 8) | b;
      words[count++] = (c << 8) | d;
      digits = 0;
      break;
    } else {
      word = word * 16 + hexValue(ch);
      digits += 1;
    }
  }
  if (digits > 0) words[count++] = word;
  if (gapAt !== -1) {
    const after = count - gapAt;
    for (let k = 1; k <= after; k += 1) words[8 - k] = words[count - k] ?? 0;
    for (let k = gapAt; k < 8 - after; k += 1) words[k] = 0;
  }
  return words;
}

const COLON = 0x3a;
const DOT = 0x2e;

/** `0-9a-fA-F` → 0–15. */
function hexValue(ch: number): number {
  if (ch <= 0x39) return ch - 0x30;
  return (ch | 0x20) - 0x57;
}

/** The low 32 bits of an IPv6 address's words as a dotted IPv4 address. */
export function embeddedV4(words: readonly number[]): string {
  const high = words[6] ?? 0;
  const low = words[7] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function classifyV6(ip: string): AddressVerdict {
  for (const translation of [IPV4_MAPPED, NAT64_WELL_KNOWN]) {
    if (translation.list.check(ip, 'ipv6')) {
      const inner = classifyV4(embeddedV4(ipv6Words(ip)));
      return inner.allowed
        ? inner
        : { ...inner, range: `${translation.cidr} ${translation.label} of ${inner.range}` };
    }
  }
  const matched = firstMatch(IPV6_RULES, ip, 'ipv6');
  if (matched) return refused(matched);
  if (!GLOBAL_UNICAST.list.check(ip, 'ipv6'))
    return { allowed: false, range: 'outside 2000::/3 global unicast' };
  return { allowed: true };
}

/**
 * Classifies one address as returned by the resolver. IPv4-mapped (`::ffff:a.b.c.d`, `::ffff:7f00:1`)
 * and NAT64 (`64:ff9b::/96`) addresses are judged by the IPv4 address they embed. Any spelling
 * `net.isIP` accepts works (compressed, expanded, upper case); an IPv6 zone id (`fe80::1%eth0`) is
 * refused even on a global address. Unparsable input is refused with range `unparsable`.
 */
export function classifyAddress(ip: string): AddressVerdict {
  const zoneAt = ip.indexOf('%');
  const base = zoneAt === -1 ? ip : ip.slice(0, zoneAt);
  const family = isIP(ip) === 0 ? 0 : isIP(base);
  if (family === 4) return classifyV4(base);
  if (family !== 6) return { allowed: false, range: 'unparsable' };
  const verdict = classifyV6(base);
  if (verdict.allowed && zoneAt !== -1) return { allowed: false, range: 'zone id on a global address' };
  return verdict;
}

/**
 * The one connect decision: `allowPrivate` (`PROBE_ALLOW_PRIVATE`, test worlds only) opens loopback
 * and private ranges, but cloud metadata endpoints and unparsable addresses stay refused even then.
 */
export function isPermittedAddress(ip: string, allowPrivate: boolean): boolean {
  const verdict = classifyAddress(ip);
  if (verdict.allowed) return true;
  return allowPrivate && verdict.range !== 'unparsable' && verdict.metadata !== true;
}
