/**
 * One signature, one run. Until its settlement, every copy of an EIP-3009 authorization passes verify
 * (the nonce is unused), so N concurrent copies would run the check N times (x402.md §8, pitfall 2).
 * The lock admits the first copy and answers the others 409 `payment_in_flight` at once.
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { MiddlewareHandler } from 'hono';
import { PROBLEM_CODES, type Problem, sendProblem } from '../http/problems.ts';

/** The answer to a second copy of an authorization while the first is running (HTTP 409, MCP isError). */
export const PAYMENT_IN_FLIGHT: Problem = {
  status: 409,
  code: PROBLEM_CODES.paymentInFlight,
  title: 'Payment already in flight',
  detail:
    'Another request carrying this payment authorization is still being processed; it was not run twice and this one was not charged. Sign a new authorization to make another call.',
};

/** A set of payment keys in flight; shared by every paid route (and transport) of one process. */
export interface InFlightLock {
  /** Takes `key`; returns its release function, or null when the key is already in flight. */
  acquire(key: string): (() => void) | null;
  /** Keys currently held. */
  readonly size: number;
}

export function createInFlightLock(): InFlightLock {
  const held = new Set<string>();
  return {
    acquire(key) {
      if (held.has(key)) return null;
      held.add(key);
      let released = false;
      return () => {
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

/**
 * The lock key of a decoded x402 payment payload: `<payer>:<nonce>` of its EIP-3009 authorization,
 * both lower-case, or null when the payload has no such authorization. Nothing here is trusted:
 * the SDK still verifies the signature; the key only stops duplicate runs.
 */
export function paymentKey(payload: unknown): string | null {
  const authorization = (
    payload as { payload?: { authorization?: { from?: unknown; nonce?: unknown } } } | null
  )?.payload?.authorization;
  const { from, nonce } = authorization ?? {};
  if (typeof from !== 'string' || typeof nonce !== 'string' || from === '' || nonce === '') return null;
  return `${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

/**
 * Middleware mounted before the x402 middleware: decodes `PAYMENT-SIGNATURE` with the SDK's decoder
 * and holds its key until everything after it (verify, check, settle) has finished. A missing or
 * undecodable header passes through untouched, so the SDK answers it with its usual 402.
 */
export function inFlightGuard(lock: InFlightLock): MiddlewareHandler {
  return async function inFlightGuard(c, next) {
    const header = c.req.header('payment-signature');
    let key: string | null = null;
    if (header) {
      try {
        key = paymentKey(decodePaymentSignatureHeader(header));
      } catch {
        key = null;
      }
    }
    if (key === null) return next();
    const release = lock.acquire(key);
    if (!release) return sendProblem(c, PAYMENT_IN_FLIGHT);
    try {
      await next();
    } finally {
      release();
    }
  };
}
