/**
 * A real `fetch` (Node's) for the edge modules' tests: every host name resolves to 127.0.0.1, so
 * the world's HTTPS site answers, and TLS trusts only the given test CA (or Node's default store).
 */
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { FetchLike } from '../../../src/sources/bounded-fetch.ts';

export interface LoopbackFetch {
  fetch: FetchLike;
  /** Every host name the fetch looked up, in order. */
  lookups: string[];
  close(): Promise<void>;
}

/** `ca` replaces the trust store (undefined keeps Node's default, which does not know the test CA). */
export function loopbackFetch(ca: string | undefined): LoopbackFetch {
  const lookups: string[] = [];
  const toLoopback: LookupFunction = (hostname, options, callback) => {
    lookups.push(hostname);
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
  const dispatcher = new Agent({ connect: { lookup: toLoopback, ...(ca ? { ca } : {}) } });
  return {
    fetch: (input, init) => fetch(input, { ...init, dispatcher } as RequestInit),
    lookups,
    close: () => dispatcher.destroy(),
  };
}
