/**
 * Paid results that did not reach their client: the settlement went through while the client was
 * already gone (it disconnected during settlement, or the process could not answer in time), or the
 * process settling it died. Such a payer may repeat the same request with the same authorization and
 * gets the check run again, once, without a second charge; the on-chain nonce makes a second
 * settlement impossible anyway.
 *
 * Before any transaction is signed for a payment, its authorization is recorded as settling; the
 * record goes when the outcome is known (result handed over, or settlement refused). A record still
 * there when a copy of the payment arrives means whoever settled it is gone: if the chain shows the
 * authorization used, the payer paid and nobody got the result, so it is run again and delivered.
 */
import { createHash } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import { LRUCache } from 'lru-cache';
import { SETTLEMENT_MAX_MS } from '../facilitator/settlement.ts';

/** How long a lost result can be claimed back. */
export const REDELIVERY_WINDOW_MS = 10 * 60_000;
/** How long a settling record lasts: the longest settlement, then the redelivery window. */
export const SETTLING_RECORD_MS = SETTLEMENT_MAX_MS + REDELIVERY_WINDOW_MS;
/** Most lost results remembered at once (each is a few hundred bytes). */
const MAX_REMEMBERED = 10_000;

/**
 * What `claim` finds: a lost result's receipt, the receipt of a result already handed over, a
 * settlement whose settler is gone, or nothing.
 */
export type Claimed = SettleResponse | HandedOver | 'interrupted' | null;

/** A payment this service settled whose result reached the transport. */
export interface HandedOver {
  delivered: SettleResponse;
}

/**
 * Where lost results are remembered: in process memory (`createUndelivered`, tests and embedders), in
 * embedded SQLite for one Node instance (`sqlite/payment-records.ts`, so a restart keeps them), in
 * Redis for instances sharing `REDIS_URL`, beside the in-flight lock of the authorization in its Durable Object
 * on Workers.
 */
export interface Undelivered {
  /** Records, before anything is signed, that `key` is being settled for `resource` with `signature`. */
  settling(key: string, signature: string, resource: string): Promise<void>;
  /** Drops the settling record of `key`: its result was handed over, or nothing was charged. */
  settled(key: string): Promise<void>;
  /**
   * Remembers for the redelivery window that `key` (`payer:nonce`) was settled: its result not
   * delivered, or (`delivered`) handed over, so that a copy is told it was paid, never that it was not.
   */
  remember(key: string, signature: string, receipt: SettleResponse, delivered?: boolean): Promise<void>;
  /**
   * The receipt of a lost result for `key` signed with `signature`; `interrupted` when a settlement
   * of it for `resource` was begun by a holder that is gone; null when there is neither. Every
   * store only reads: the record stays until `settled` once the result is handed over, so a claim
   * whose answer never came back (a store's reply lost after it ran) loses nothing, and the
   * in-flight lock the caller holds keeps two copies from claiming at once.
   */
  claim(key: string, signature: string, resource?: string): Promise<Claimed>;
}

/** A settled result (lost, or handed over when `delivered`) as remembered. */
export interface LostResult {
  /** The payload signature the settlement used: a claim must carry the same one. */
  signature: string;
  receipt: SettleResponse;
  delivered?: boolean;
}

/** A settlement begun: the signature and the resource it pays for. */
export interface SettlingRecord {
  signature: string;
  resource: string;
}

/**
 * What a shared or durable store keeps of a payment signature: never the signature itself (anyone
 * holding it could still submit the authorization while it is unused), so a claim compares digests.
 */
export const signatureDigest = (signature: string): string =>
  createHash('sha256').update(signature).digest('hex');

/** What a claim finds in a stored `entry` for `signature` and `resource`. */
export function claimOf(
  entry: LostResult | SettlingRecord | undefined,
  signature: string,
  resource: string | undefined,
): Claimed {
  if (!entry || entry.signature !== signature) return null;
  if ('receipt' in entry) return entry.delivered ? { delivered: entry.receipt } : entry.receipt;
  return resource === undefined || entry.resource === resource ? 'interrupted' : null;
}

export function createUndelivered(): Undelivered {
  const entries = new LRUCache<string, LostResult | SettlingRecord>({ max: MAX_REMEMBERED });
  return {
    settling: async (key, signature, resource) =>
      void entries.set(key, { signature, resource }, { ttl: SETTLING_RECORD_MS }),
    settled: async (key) => void entries.delete(key),
    remember: async (key, signature, receipt, delivered = false) =>
      void entries.set(key, { signature, receipt, delivered }, { ttl: REDELIVERY_WINDOW_MS }),
    claim: async (key, signature, resource) => claimOf(entries.get(key), signature, resource),
  };
}
