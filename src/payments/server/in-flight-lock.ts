/**
 * One signature, one run. Until its settlement, every copy of an EIP-3009 authorization passes verify
 * (the nonce is unused), so N concurrent copies would run the check N times.
 * The lock admits the first copy and answers the others 409 `payment_in_flight` at once.
 */
import { PROBLEM_CODES, type Problem } from '../../vocabulary/problems.ts';

/** The answer to a second copy of an authorization while the first is running (HTTP 409, MCP isError). */
export const PAYMENT_IN_FLIGHT: Problem = {
  status: 409,
  code: PROBLEM_CODES.paymentInFlight,
  title: 'Payment already in flight',
  detail:
    'Another request carrying this payment authorization is still being processed; it was not run twice and this one was not charged. Sign a new authorization to make another call.',
};

/**
 * Payment keys in flight, shared by every paid route and transport: in process memory on Node
 * (`createInFlightLock`), in a Durable Object per key on Workers (`edge/authorization-object.ts`).
 */
export interface InFlightLock {
  /**
   * Takes `key`; resolves to its release function, or null when the key is already in flight. The
   * release has landed when its promise resolves: a copy sent after the answer is not refused 409.
   */
  acquire(key: string): Promise<(() => Promise<void>) | null>;
}

/** The lock of one process, with the number of keys it holds. */
export function createInFlightLock(): InFlightLock & { readonly size: number } {
  const held = new Set<string>();
  return {
    async acquire(key) {
      if (held.has(key)) return null;
      held.add(key);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        held.delete(key);
      };
    },
    get size() {
      return held.size;
    },
  };
}
