/**
 * The deadline of the settlement a JSON-RPC request belongs to. Settlement runs its work inside
 * `withRpcDeadline`; every request its viem clients make through `deadlineFetch` is aborted at that
 * deadline (or at once when it has passed), whichever call of the facilitator, the nonce owner or
 * the reconciliation made it. Without this a hung RPC holds each request until the client's own
 * timeout and retry, and a settlement past its bound by as much again (docs/paying.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/** Runs `work` with its JSON-RPC requests bounded by `atMs` (wall clock), or the enclosing deadline if earlier. */
export function withRpcDeadline<T>(atMs: number, work: () => Promise<T>): Promise<T> {
  const enclosing = deadlines.getStore();
  return deadlines.run(enclosing === undefined ? atMs : Math.min(enclosing, atMs), work);
}

/** `fetch` for viem's HTTP transport (`fetchFn`), aborted at the deadline of the work it runs in. */
export const deadlineFetch: typeof fetch = (input, init) => {
  const at = deadlines.getStore();
  if (at === undefined) return fetch(input, init);
  const left = at - Date.now();
  if (left <= 0)
    return Promise.reject(new DOMException('the settlement deadline has passed', 'TimeoutError'));
  const bound = AbortSignal.timeout(left);
  return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, bound]) : bound });
};
