/**
 * Paid results that did not reach their client: the settlement went through while the client was
 * already gone (it disconnected during settlement, or the process could not answer in time). Such a
 * payer may repeat the same request with the same authorization and gets the check run again, once,
 * without a second charge; the on-chain nonce makes a second settlement impossible anyway.
 */
import type { SettleResponse } from '@x402/core/types';
import { LRUCache } from 'lru-cache';

/** How long a lost result can be claimed back. */
export const REDELIVERY_WINDOW_MS = 10 * 60_000;
/** Most lost results remembered at once (each is a few hundred bytes). */
const MAX_REMEMBERED = 10_000;

/**
 * Where lost results are remembered: in process memory on Node (`createUndelivered`), beside the
 * in-flight lock of the authorization in its Durable Object on Workers.
 */
export interface Undelivered {
  /** Remembers that the paid result of `key` (`payer:nonce`) was settled but not delivered. */
  remember(key: string, signature: string, receipt: SettleResponse): Promise<void>;
  /** The receipt of a lost result for `key` signed with `signature`, removed; null when there is none. */
  claim(key: string, signature: string): Promise<SettleResponse | null>;
}

/** A lost result as remembered. */
export interface LostResult {
  /** The payload signature the settlement used: a claim must carry the same one. */
  signature: string;
  receipt: SettleResponse;
}

export function createUndelivered(): Undelivered {
  const lost = new LRUCache<string, LostResult>({ max: MAX_REMEMBERED, ttl: REDELIVERY_WINDOW_MS });
  return {
    remember: async (key, signature, receipt) => void lost.set(key, { signature, receipt }),
    async claim(key, signature) {
      const entry = lost.get(key);
      if (!entry || entry.signature !== signature) return null;
      lost.delete(key);
      return entry.receipt;
    },
  };
}
