/**
 * Who free work is attributed to: one canonical key per client for the free-work limit. An IPv4
 * address is its own key, an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, `::ffff:c000:201`) is
 * the IPv4 address it carries, and any other IPv6 address is keyed by its /64 — one subscriber's
 * usual allocation, or one host would hold 2^64 buckets. A value that is not an address (a name, a
 * port, an empty or huge string) has no key and is never believed.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Context } from 'hono';
import { embeddedV4, ipv6Words } from '../sources/public-fetch/address-policy.ts';

/** Which bucket a request's free work is taken from; undefined: nobody to attribute it to (not limited). */
export type ClientKey = (c: Context) => string | undefined;

/** The longest address with a zone id worth reading (45 characters for the longest IPv6 spelling). */
const MAX_ADDRESS_LENGTH = 64;
const MAPPED_PREFIX = '::ffff:';

/** An address as dotted IPv4, or the eight words of an IPv6 address that carries no IPv4 one. */
type Parsed = string | number[];

function parse(text: string): Parsed | undefined {
  if (text.length > MAX_ADDRESS_LENGTH) return undefined;
  // The usual peer of a dual-stack socket, without building a URL.
  if (text.startsWith(MAPPED_PREFIX) && isIP(text.slice(MAPPED_PREFIX.length)) === 4)
    return text.slice(MAPPED_PREFIX.length);
  const zoneAt = text.indexOf('%');
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return undefined;
  const words = ipv6Words(zoneAt === -1 ? text : text.slice(0, zoneAt));
  const [w0, w1, w2, w3, w4, w5] = words;
  const mapped = w5 === 0xffff && w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0;
  return mapped ? embeddedV4(words) : words;
}

const hex = (words: readonly number[]) => words.map((word) => word.toString(16)).join(':');

/** One spelling per address (IPv4-mapped as IPv4, IPv6 as eight hex words), or undefined. */
export function canonicalAddress(text: string): string | undefined {
  const parsed = parse(text);
  return typeof parsed === 'object' ? hex(parsed) : parsed;
}

/** The free-work key of an address: IPv4 as itself, IPv6 by its /64; undefined when `text` is not one. */
export function addressKey(text: string): string | undefined {
  const parsed = parse(text);
  if (typeof parsed !== 'object') return parsed;
  const [w0 = 0, w1 = 0, w2 = 0, w3 = 0] = parsed;
  return `${w0.toString(16)}:${w1.toString(16)}:${w2.toString(16)}:${w3.toString(16)}::/64`;
}

/**
 * The client on Node: the connection's peer, or when the peer is one of `trustedProxies`, the
 * right-most `X-Forwarded-For` entry that is not itself a trusted proxy (entries left of it are the
 * client's own claims). An entry that is not an address ends the walk: the last trusted hop is the
 * client then. Undefined without a socket (an in-process request).
 */
export function peerClient(trustedProxies: readonly string[]): ClientKey {
  const trusted = new Set(trustedProxies.map((proxy) => canonicalAddress(proxy) ?? proxy));
  return (c) => {
    const peer = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress;
    if (peer === undefined) return undefined;
    if (trusted.size === 0) return addressKey(peer);
    let client = canonicalAddress(peer);
    if (client === undefined || !trusted.has(client)) return addressKey(peer);
    const forwarded = c.req.header('x-forwarded-for')?.split(',') ?? [];
    for (let i = forwarded.length - 1; i >= 0; i -= 1) {
      const hop = canonicalAddress(forwarded[i]?.trim() ?? '');
      if (hop === undefined) break;
      client = hop;
      if (!trusted.has(hop)) break;
    }
    return addressKey(client);
  };
}

/** The bucket of Worker requests whose `CF-Connecting-IP` is missing or not an address. */
export const UNATTRIBUTED = 'unattributed';

/**
 * The client on Cloudflare: `CF-Connecting-IP`, which Cloudflare's edge sets on every request it
 * passes to a Worker (a client cannot set its own). Only the Worker entry may choose this: on Node
 * the header is the client's claim. Requests without a usable one (local workerd, where nothing
 * sets it) share one bucket, as requests from one peer do on Node.
 */
export const connectingIpClient: ClientKey = (c) => {
  const header = c.req.header('cf-connecting-ip');
  return (header === undefined ? undefined : addressKey(header.trim())) ?? UNATTRIBUTED;
};
