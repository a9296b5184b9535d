/**
 * The ports every watch runtime implements: embedded SQLite on one Node instance, Redis for several,
 * a Durable Object per watch on Workers. The pure parts (`model.ts`, `delivery.ts`) decide; a store
 * keeps what they decided durably and hands due work to exactly one worker at a time.
 *
 * Every implementation must honour:
 * - Durability: a call that resolved survived a `kill -9` of the process that made it.
 * - Atomicity: `commit` writes the new record, its events and their pending deliveries together,
 *   or nothing.
 * - Optimistic concurrency: `commit` succeeds only over the record version it was computed from,
 *   so one state is never applied (nor its events raised) twice, even when a lease expired and two
 *   workers checked the same watch.
 * - Leases, not locks: a claim hides the claimed work from other claims until `leaseMs` has
 *   passed; a worker that dies leaves its work to be claimed again after that, never lost.
 * - No TTLs: watches, events and pending deliveries are never evicted; events and attempts beyond
 *   the latest `HISTORY_LIMIT` of a watch may be dropped.
 */
import type { RunOutcome } from '../checks/outcome.ts';
import type { SiteHealthResult } from '../checks/site-health/result.ts';
import type { DeliveryAttempt, DeliveryVerdict, PendingDelivery, SendOutcome } from './delivery.ts';
import type { PendingPayment, WatchEvent, WatchRecord } from './model.ts';
import type { Rotated } from './rotations.ts';
import type { WatchSecrets } from './secrets.ts';
import type { WalletLedger } from './wallet-ledger.ts';
import type { WebhookReach } from './webhook-reach.ts';

/** Events and delivery attempts a status answer lists (the latest, newest last). */
export const HISTORY_LIMIT = 100;

/** A watch's record with the events and pending deliveries of the transition that made it. */
export interface WatchCommit {
  watch: WatchRecord;
  /** The version `watch` was computed from (`watch.version - 1`), or -1 for a new record. */
  expectedVersion: number;
  events: WatchEvent[];
  deliveries: PendingDelivery[];
  /** Drops the watch's pending deliveries before enqueuing `deliveries` (a cancellation). */
  dropPending?: boolean;
}

export interface WatchStore {
  /**
   * Writes a new pending watch unless one with its id exists; resolves the record now stored
   * (the existing one when it did: one payment signature buys one watch).
   */
  insert(watch: WatchRecord): Promise<WatchRecord>;
  /** The watch with `id`, or null. */
  get(id: string): Promise<WatchRecord | null>;
  /**
   * Removes a watch that is still `pending` (its payment was not settled); a watch in any other
   * status is kept. Resolves whether it was removed.
   */
  discardPending(id: string): Promise<boolean>;
  /**
   * Writes `commit` atomically if the stored version is `expectedVersion`; resolves false (and
   * writes nothing) otherwise. Releases any lease on the watch. A `webhookGone` already stored
   * stays set, and then no delivery to that URL is enqueued. With `dropPending`, the watch's
   * pending deliveries are removed first (an attempt in flight records nothing more).
   */
  commit(commit: WatchCommit): Promise<boolean>;
  /**
   * Leases up to `limit` active watches whose `dueAt` is at or before `now` and whose lease (if
   * any) has run out, earliest `dueAt` first, for `leaseMs`. A leased watch is not claimed again
   * until its lease runs out or a `commit` releases it.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<WatchRecord[]>;
  /** The earliest `dueAt` of an active watch, or null when none is active (the scheduler's sleep). */
  nextDueAt(): Promise<number | null>;
  /** The events of a watch after event `afterSeq` (0: all), oldest first, at most `limit`: the latest ones. */
  events(watchId: string, afterSeq: number, limit: number): Promise<WatchEvent[]>;
  /** The latest `limit` delivery attempts of a watch, oldest first. */
  attempts(watchId: string, limit: number): Promise<DeliveryAttempt[]>;
  /**
   * Leases up to `limit` pending deliveries whose `dueAt` is at or before `now`, earliest first,
   * for `leaseMs`: at most one per watch, and none of a watch that has a delivery under a lease
   * (one attempt in flight per watch, fleet-wide). A lease ends with `recordAttempt` or runs out.
   */
  claimDeliveries(now: number, limit: number, leaseMs: number): Promise<PendingDelivery[]>;
  /**
   * When a pending delivery may next be claimed: its `dueAt`, or later while another delivery of
   * its watch is under a lease; null when none is pending.
   */
  nextDeliveryAt(): Promise<number | null>;
  /**
   * Records one attempt of `delivery` and applies its verdict atomically, releasing its lease (the
   * watch's next delivery may be claimed): `delivered` and `given_up` remove the pending delivery;
   * `retry` keeps it, if still pending, with `attempts + 1` and the new `dueAt`; `gone` removes it
   * and every other pending delivery of the watch and sets the watch's `webhookGone` (without a
   * version bump: no state of the watch changes).
   */
  recordAttempt(delivery: PendingDelivery, attempt: DeliveryAttempt, verdict: DeliveryVerdict): Promise<void>;
  /**
   * Up to `limit` watches still `pending` that were opened at or before `openedBy`, oldest first:
   * paid calls that should have finished them by now (`pending-sweep.ts`).
   */
  pendingOpenedBy(openedBy: number, limit: number): Promise<WatchRecord[]>;
  /** Watches by status, for the metrics. */
  countByStatus(): Promise<Record<'pending' | 'active' | 'ended' | 'cancelled', number>>;
  close(): Promise<void>;
}

/**
 * A check's outcome. A result may name `unconfirmed` codes: failures it shows that a second look a
 * few seconds later did not see (`confirm.ts`), which are not raised.
 */
export type WatchCheckOutcome =
  | Exclude<RunOutcome<SiteHealthResult>, { type: 'result' }>
  | { type: 'result'; result: SiteHealthResult; unconfirmed?: string[] };

/**
 * Runs one site-health check for a watch's domain (the scheduler shares one per domain per claim;
 * `round-check.ts` wraps one to share it across claims, instances or objects for a round).
 */
export type WatchCheck = (domain: string) => Promise<WatchCheckOutcome>;

/** Sends one signed attempt; the steered fetch behind it refuses non-public addresses. */
export type WebhookSender = (request: {
  url: string;
  headers: Record<string, string>;
  body: string;
}) => Promise<SendOutcome>;

/**
 * What the routes and tools need from a runtime's watches, whatever keeps them. Node builds it over
 * a `WatchStore` and the scheduler (`service.ts`); Workers over a Durable Object per watch.
 */
export interface WatchService {
  /**
   * Inside a paid call, after validation and verification: the watch `id` (derived from the
   * payment signature) with its first check. Creates it `pending` when new; a watch that exists
   * (a lost 201 claimed again) is returned as it is. `upstream_failed` creates nothing.
   */
  open(request: OpenWatch): Promise<OpenedWatch>;
  /** Paid and settled: activates a pending watch (`watch.created`); an active one is left as it is. */
  activate(id: string): Promise<WatchRecord | null>;
  /** The payment was not settled: removes the watch if it is still pending. */
  discard(id: string): Promise<void>;
  /** The watch if `token` manages it, else null (an unknown id and a wrong token look alike). */
  authorized(id: string, token: string): Promise<WatchRecord | null>;
  /** Events after `afterSeq` and the latest attempts, for the status answer. */
  history(id: string, afterSeq: number): Promise<{ events: WatchEvent[]; attempts: DeliveryAttempt[] }>;
  /** Ends an active watch now (`watch.ended`); resolves the watch as it stands after. */
  cancel(id: string): Promise<WatchRecord | null>;
  /** The watch, or null while it is pending or unknown (its caller proved the right to see it). */
  watch(id: string): Promise<WatchRecord | null>;
  /** Rotates the token or the webhook secret of a watch that is not pending (`rotations.ts`). */
  rotate(id: string, what: Rotated): Promise<WatchRecord | null>;
  /**
   * Moves the end of an active watch `days` later, paid by the payment `key` (`payer:nonce`); a
   * payment that extended it already extends nothing more. Resolves the watch as it stands after.
   */
  extend(id: string, days: number, key: string): Promise<WatchRecord | null>;
}

export interface OpenWatch {
  id: string;
  domain: string;
  days: number;
  webhookUrl: string | null;
  /** The authorization paying for it, kept on the pending record. */
  payment?: PendingPayment;
}

export type OpenedWatch =
  | { kind: 'opened'; watch: WatchRecord; created: boolean }
  /** The first check gave no result (400/502): nothing created, nothing to settle. */
  | { kind: 'check_failed'; outcome: Exclude<RunOutcome<never>, { type: 'result' }> };

/** What the routes and tools of a runtime that keeps watches are given. */
export interface Watches {
  service: WatchService;
  secrets: WatchSecrets;
  /** Where the runtime keeps who paid for what and the sign-in nonces it accepted; without it no wallet signs in. */
  ledger?: WalletLedger;
  /** Whether a webhook URL can be delivered to, asked before any payment logic. */
  reach: WebhookReach;
}
