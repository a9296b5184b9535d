/**
 * The steered fetch: how the service reaches a URL it did not configure (RDAP bases from the
 * bootstrap, registrar referrals, any redirect). The host name is resolved through DoH, only an
 * address the SSRF policy allows is connected to, the connection is pinned to that address,
 * credentials are never sent, and each of at most `MAX_REDIRECTS` redirects passes the same policy.
 */
import { isIP } from 'node:net';
import type { FetchLike } from '../bounded-fetch.ts';
import type { SourceResult } from '../failure.ts';
import { isPermittedAddress } from './address-policy.ts';
import { beforeAbort } from './before-abort.ts';
import { OutboundRefusal } from './outbound-refusal.ts';

/** Most redirects followed for one steered request. */
export const MAX_REDIRECTS = 3;

/** One HTTP exchange with an address the policy already allowed. */
export interface PinnedExchange {
  /** The URL to ask for, credentials already removed; its host goes into Host (and SNI for https). */
  url: URL;
  /** The IP literal to connect to; nothing may resolve `url.hostname` again. */
  address: string;
  headers: Headers;
  signal: AbortSignal | undefined;
  /** `POST` only for a webhook delivery (never redirected); default `GET`. */
  method?: 'GET' | 'POST';
  /** The body of a `POST`. */
  body?: string;
}

/**
 * Performs one request (GET, or a webhook's POST) without following redirects. Node pins a socket to `address`
 * (`node-transport.ts`); another runtime can supply its own, e.g. a fetch-based one on Workers.
 */
export type PinnedTransport = (exchange: PinnedExchange) => Promise<Response>;

export interface PublicFetchDeps {
  /** Name → A and AAAA addresses through DoH (the DoH client's `resolveAddresses`). */
  resolve: (name: string) => Promise<SourceResult<string[]>>;
  /** `PROBE_ALLOW_PRIVATE`: test worlds only; cloud metadata stays refused even then. */
  allowPrivate: boolean;
  transport: PinnedTransport;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A copy of `url` without user name and password, so they are neither sent nor reported. */
export function withoutCredentials(url: URL): URL {
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  return copy;
}

/**
 * Creates the steered fetch. GET, and POST of a string body with `redirect: 'manual'` (a webhook
 * delivery: a receiver's redirect is an answer, never followed). `init.redirect` keeps fetch's
 * meaning, but `follow` (the default) follows at most `MAX_REDIRECTS`, each hop under the policy.
 * A refusal rejects with `OutboundRefusal`; nothing is connected to in that case.
 */
export function createPublicFetch(deps: PublicFetchDeps): FetchLike {
  async function addressOf(url: URL, signal: AbortSignal | undefined): Promise<string> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new OutboundRefusal('blocked_address', `${url.protocol} URLs are not fetched`);
    }
    // The URL parser already turned 2130706433, 0177.0.0.1 and 127.1 into 127.0.0.1.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // RFC 6761 §6.3: these names are loopback whatever a resolver answers.
    if (host === 'localhost' || host.endsWith('.localhost')) {
      throw new OutboundRefusal('blocked_address', `${host} is a loopback name`);
    }
    if (isIP(host) !== 0) {
      if (isPermittedAddress(host, deps.allowPrivate)) return host;
      throw new OutboundRefusal('blocked_address', `${url.host} is not a public address`);
    }
    const resolved = signal ? await beforeAbort(deps.resolve(host), signal) : await deps.resolve(host);
    if (resolved === undefined) throw new OutboundRefusal('timeout', `resolving ${host} took too long`);
    if (!resolved.ok) throw new OutboundRefusal(resolved.failure.code, `${host} could not be resolved`);
    if (resolved.value.length === 0) throw new OutboundRefusal('network', `${host} has no address`);
    const address = resolved.value.find((candidate) => isPermittedAddress(candidate, deps.allowPrivate));
    if (address === undefined) {
      throw new OutboundRefusal('blocked_address', `${host} resolves only to non-public addresses`);
    }
    return address;
  }

  return async function publicFetch(input, init = {}) {
    if (input instanceof Request) throw new TypeError('publicFetch takes a URL, not a Request');
    const method = (init.method ?? 'GET').toUpperCase();
    const mode = init.redirect ?? 'follow';
    const post = method === 'POST' && mode === 'manual' && typeof init.body === 'string';
    if (method !== 'GET' && !post) {
      throw new TypeError('publicFetch sends GET, or POST of a string body with redirect: manual');
    }
    const headers = new Headers(init.headers);
    const signal = init.signal ?? undefined;
    const send = post ? { method: 'POST' as const, body: init.body as string } : {};
    let url = withoutCredentials(new URL(input instanceof URL ? input.href : input));
    for (let redirects = 0; ; redirects += 1) {
      const address = await addressOf(url, signal);
      const response = await deps.transport({ url, address, headers, signal, ...send });
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null || mode === 'manual') {
        return response;
      }
      await response.body?.cancel().catch(() => {});
      if (mode === 'error') throw new OutboundRefusal('http_status', `${url.host} redirected`);
      if (redirects === MAX_REDIRECTS) {
        throw new OutboundRefusal('http_status', `more than ${MAX_REDIRECTS} redirects`);
      }
      // RFC 9110 §10.2.2: Location may be relative to the URL that was asked for.
      if (!URL.canParse(location, url.href)) throw new OutboundRefusal('http_status', 'unparsable redirect');
      url = withoutCredentials(new URL(location, url));
    }
  };
}
