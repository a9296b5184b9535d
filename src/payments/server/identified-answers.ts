/**
 * The answers of paid calls that carried an x402 `payment-identifier`, kept for the redelivery
 * window so that the same payment sent again gets the same answer without a second check or charge
 * (x402 `specs/extensions/payment_identifier.md`, "Recovering a Lost Response"). Each record binds its
 * identifier to the call that first used it; the payment itself is kept only as a digest.
 *
 * Stores: process memory (`createIdentifiedAnswers`), embedded SQLite for one Node instance
 * (`sqlite/payment-records.ts`), Redis (`redis/identified-answers.ts`), the Worker's
 * `AuthorizationObject` (`edge/authorization-object.ts`).
 */
import type { SettleResponse } from '@x402/core/types';
import { LRUCache } from 'lru-cache';
import { CHECK_BUDGET_MS } from '../../checks/check-budget.ts';
import { SETTLEMENT_MAX_MS } from '../facilitator/settlement.ts';
import { REDELIVERY_WINDOW_MS } from './undelivered.ts';

/** What a paid call answered: the check's result and its settlement receipt (`PAYMENT-RESPONSE`). */
export interface StoredAnswer {
  result: unknown;
  receipt: SettleResponse;
}

/** What `begin` found for an identifier. */
export type Begun =
  /** Nothing (or only something expired): the identifier is now taken by this call until `token` answers or releases it. */
  | { kind: 'begun'; token: string }
  /** The identifier is bound to another payment or another request. */
  | { kind: 'conflict' }
  /** The same payment is still being processed. */
  | { kind: 'pending' }
  /** The same payment was answered: its answer. */
  | { kind: 'answered'; answer: StoredAnswer };

/** The longest a paid call can take: verification (10 s), the check, settlement. */
export const PAID_CALL_MAX_MS = 10_000 + CHECK_BUDGET_MS + SETTLEMENT_MAX_MS;

/**
 * How long a call holds its identifier: the whole paid call, since nothing renews it. Not the
 * in-flight lock's short renewed lease: a copy that took the identifier over from a live call
 * would keep that call's answer from being stored.
 */
export const IDENTIFIED_LEASE_MS = PAID_CALL_MAX_MS;

export interface IdentifiedAnswers {
  /**
   * Looks `key` up and, when it is free, takes it for `binding` (a digest of the payment and of the
   * request) for `IDENTIFIED_LEASE_MS`, in one atomic step.
   */
  begin(key: string, binding: string): Promise<Begun>;
  /** Stores the answer of the call holding `token`, for `REDELIVERY_WINDOW_MS`. */
  answer(key: string, token: string, answer: StoredAnswer): Promise<void>;
  /** Frees `key` when the call holding `token` charged nothing, so the identifier can be paid with again. */
  release(key: string, token: string): Promise<void>;
}

/** One record, as every store keeps it. */
export interface IdentifiedRecord {
  binding: string;
  /** The call holding a record that is not answered yet. */
  token?: string;
  answer?: StoredAnswer;
  /** Epoch ms after which the record is gone. */
  until: number;
}

/** How `begin` reads a record found under its key (null: none, or expired). */
export function begun(
  found: IdentifiedRecord | null,
  binding: string,
): Exclude<Begun, { kind: 'begun' }> | null {
  if (!found) return null;
  if (found.binding !== binding) return { kind: 'conflict' };
  return found.answer ? { kind: 'answered', answer: found.answer } : { kind: 'pending' };
}

/** Most records one process keeps, and the bytes of answers they may hold in all. */
const MAX_RECORDS = 10_000;
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The answers of one process; `now` is injectable for tests of the windows. */
export function createIdentifiedAnswers(now: () => number = Date.now): IdentifiedAnswers {
  const records = new LRUCache<string, IdentifiedRecord & { size: number }>({
    max: MAX_RECORDS,
    maxSize: MAX_ANSWER_BYTES,
    sizeCalculation: (record) => record.size,
  });
  const live = (key: string) => {
    const record = records.get(key);
    if (record && record.until <= now()) {
      records.delete(key);
      return null;
    }
    return record ?? null;
  };
  return {
    async begin(key, binding) {
      const found = begun(live(key), binding);
      if (found) return found;
      const token = crypto.randomUUID();
      records.set(key, { binding, token, until: now() + IDENTIFIED_LEASE_MS, size: binding.length });
      return { kind: 'begun', token };
    },
    async answer(key, token, answer) {
      const record = live(key);
      if (record?.token !== token) return;
      // Kept as JSON, as the shared stores keep it: the caller's objects are not retained.
      const json = JSON.stringify(answer);
      records.set(key, {
        binding: record.binding,
        answer: JSON.parse(json) as StoredAnswer,
        until: now() + REDELIVERY_WINDOW_MS,
        size: record.binding.length + json.length,
      });
    },
    async release(key, token) {
      if (live(key)?.token === token) records.delete(key);
    },
  };
}
