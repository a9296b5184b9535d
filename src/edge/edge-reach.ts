/**
 * Reaching outside hosts from a Worker: `fetch` only. The name is checked against the SSRF policy
 * through DoH before anything is fetched, but the platform resolves it again and picks the address
 * itself: at the edge the last line is Cloudflare refusing private destinations for subrequests.
 */
import type { Reach } from '../sources/reach.ts';
import { createFetchProbe } from './fetch-probe.ts';
import { createFetchTransport } from './fetch-transport.ts';
import { rejectingOriginErrors } from './origin-errors.ts';

export function edgeReach(fetch: typeof globalThis.fetch): Reach {
  return {
    probe: (setup) => createFetchProbe({ ...setup, fetch }),
    readsServedLeaf: false,
    upstreamFetch: rejectingOriginErrors(fetch),
    transport: createFetchTransport(fetch),
  };
}
