/**
 * Cloudflare answers a Worker's subrequest it could not deliver with a response of its own: 530
 * (error 1016, the name does not resolve), 523 (the origin is unreachable) or 522 (the connection
 * timed out). The upstream never answered, so for the checks that is a failure to reach it (as a
 * refused connection is on Node), not an HTTP status the upstream chose.
 */
import type { FetchLike } from '../sources/bounded-fetch.ts';

/** Statuses Cloudflare itself returns when it could not reach the origin of a subrequest. */
export const ORIGIN_UNREACHABLE_STATUSES: ReadonlySet<number> = new Set([522, 523, 530]);

/** `fetch` whose Cloudflare "origin unreachable" responses reject, as an unreachable host does on Node. */
export function rejectingOriginErrors(fetch: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!ORIGIN_UNREACHABLE_STATUSES.has(response.status)) return response;
    await response.body?.cancel().catch(() => {});
    throw new TypeError(`the upstream could not be reached (Cloudflare answered ${response.status})`);
  };
}
