/**
 * The steered fetch's transport for runtimes that cannot open sockets (Cloudflare Workers): one
 * `fetch` per exchange, redirects returned to the steered fetch, which judges each hop itself.
 *
 * It cannot pin the connection to `exchange.address`: the platform resolves `url`'s host name again
 * and connects wherever that answer points. The steered fetch has already refused a name whose
 * DoH answer held only refused addresses; what stops an answer that changed since (DNS rebinding)
 * is the platform itself, which does not let a Worker's fetch reach loopback, private or cloud
 * metadata addresses. On Node, `node-transport.ts` pins the socket instead.
 */
import type { FetchLike } from '../sources/bounded-fetch.ts';
import type { PinnedTransport } from '../sources/public-fetch/public-fetch.ts';

/** Creates the transport over `fetch`, which must honour `redirect: 'manual'` and `signal`. */
export function createFetchTransport(fetch: FetchLike): PinnedTransport {
  return function fetchTransport({ url, headers, signal, method = 'GET', body }) {
    return fetch(url, {
      method,
      headers,
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
      ...(signal ? { signal } : {}),
    });
  };
}
