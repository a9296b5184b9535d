/**
 * A watch and its events as every store keeps them (times in epoch milliseconds), and the pure
 * transitions that move a watch on: activation once paid, a check's outcome, the passing of its
 * days, a cancellation. Each transition returns the new record (its `version` one higher) and the
 * events it raised; a store commits the two together or not at all.
 */
import type { SiteHealthResult } from '../checks/site-health/result.ts';
import { conditionChange, conditionsOf } from './conditions.ts';
import { nextConditions } from './next-conditions.ts';
import { firstCheckAfter, nextCheckAfter } from './slots.ts';

export type WatchStatus = 'pending' | 'active' | 'ended' | 'cancelled';

export const EVENT_TYPES = [
  'watch.created',
  'watch.alert',
  'watch.check_failed',
  'watch.ending',
  'watch.ended',
  'watch.secret_rotated',
] as const;
export type WatchEventType = (typeof EVENT_TYPES)[number];

/** Failed checks in a row that raise `watch.check_failed`. */
export const FAILED_CHECKS_ALERT = 3;

/**
 * The EIP-3009 authorization that pays for a pending watch: what the chain is asked about when the
 * paid call that opened the watch never finished it (`pending-sweep.ts`). Not the signature.
 */
export interface PendingPayment {
  /** The payer. */
  from: `0x${string}`;
  /** The authorization's nonce (32 bytes, lower-case hex). */
  nonce: `0x${string}`;
  /** Unix seconds: unused by then, the authorization can never be used. */
  validBefore: number;
}

export interface WatchRecord {
  id: string;
  domain: string;
  days: number;
  /** Null: pull only. */
  webhookUrl: string | null;
  /** `pending` between the first check and the settlement of its payment: not scheduled, no events. */
  status: WatchStatus;
  createdAt: number;
  expiresAt: number;
  intervalS: number;
  /** When the next check is due: one of the domain's slots (`slots.ts`), shared by its every watch. */
  nextCheckAt: number;
  /** When the scheduler must next look at the watch: the next check, `watch.ending` or the end. */
  dueAt: number;
  conditions: string[];
  lastCheckedAt: number | null;
  lastResult: SiteHealthResult | null;
  /** Checks in a row that could not be made. */
  failures: number;
  endingSent: boolean;
  /** The webhook answered 410: no more deliveries to it. */
  webhookGone: boolean;
  /** Events raised so far; the next event is number `eventSeq + 1`. */
  eventSeq: number;
  /** Bumped by every transition: a store refuses to commit over a newer version. */
  version: number;
  /** While `pending`: the payment being settled for it (dropped once active). */
  payment?: PendingPayment;
  /** The wallet whose authorization bought it (lower-case): it may sign in to manage it (`sign-in.ts`). */
  payer?: `0x${string}`;
  /** Rotations of its token and of its webhook secret so far (absent: none; `rotations.ts`). */
  tokenGeneration?: number;
  secretGeneration?: number;
  /** The latest payments (`payer:nonce`) that extended it (`extend`). */
  extendedBy?: string[];
}

export interface WatchEvent {
  id: string;
  type: WatchEventType;
  watch_id: string;
  domain: string;
  /** RFC 3339. */
  at: string;
  data: Record<string, unknown>;
}

/** The event id of the `seq`-th event of a watch: unique, stable, ordered within the watch. */
export function eventId(watchId: string, seq: number): string {
  return `evt_${watchId.replace(/^wat_/, '')}_${String(seq).padStart(6, '0')}`;
}

/** The sequence number in an event id of `watchId`, or null when it is not one of its ids. */
export function eventSeqOf(watchId: string, id: string): number | null {
  const prefix = `evt_${watchId.replace(/^wat_/, '')}_`;
  if (!id.startsWith(prefix)) return null;
  const digits = id.slice(prefix.length);
  return /^[0-9]{6,9}$/.test(digits) ? Number(digits) : null;
}

export interface Transition {
  watch: WatchRecord;
  events: WatchEvent[];
}

export interface NewWatch {
  id: string;
  domain: string;
  days: number;
  webhookUrl: string | null;
  intervalS: number;
  dayS: number;
  now: number;
  /** The first site-health result, from inside the paid call. */
  result: SiteHealthResult;
  payment?: PendingPayment;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The pending watch a paid call creates after its first check, before settlement. */
export function newWatch(input: NewWatch): WatchRecord {
  const expiresAt = input.now + input.days * input.dayS * 1000;
  const nextCheckAt = firstCheckAfter(input.domain, input.intervalS, input.now);
  return {
    id: input.id,
    domain: input.domain,
    days: input.days,
    webhookUrl: input.webhookUrl,
    status: 'pending',
    createdAt: input.now,
    expiresAt,
    intervalS: input.intervalS,
    nextCheckAt,
    dueAt: Math.min(nextCheckAt, endingAt(expiresAt, input.dayS)),
    conditions: conditionsOf(input.result),
    lastCheckedAt: input.now,
    lastResult: input.result,
    failures: 0,
    // `watch.ending` is for a watch that runs longer than a day: a one-day watch would get it at once.
    endingSent: input.days <= 1,
    webhookGone: false,
    eventSeq: 0,
    version: 0,
    ...(input.payment
      ? { payment: input.payment, payer: input.payment.from.toLowerCase() as `0x${string}` }
      : {}),
  };
}

/** When `watch.ending` is due: one day before the end (never sent for a watch of one day). */
function endingAt(expiresAt: number, dayS: number): number {
  return expiresAt - dayS * 1000;
}

export function raise(
  watch: WatchRecord,
  events: WatchEvent[],
  type: WatchEventType,
  now: number,
  data: object,
) {
  watch.eventSeq += 1;
  events.push({
    id: eventId(watch.id, watch.eventSeq),
    type,
    watch_id: watch.id,
    domain: watch.domain,
    at: iso(now),
    data: { ...data },
  });
}

function recompute(watch: WatchRecord, dayS: number): void {
  const candidates = [watch.nextCheckAt, watch.expiresAt];
  if (!watch.endingSent) candidates.push(endingAt(watch.expiresAt, dayS));
  watch.dueAt = Math.min(...candidates);
}

/** Applies the days that have passed by `now`: `watch.ending`, then `watch.ended`. */
function passTime(watch: WatchRecord, events: WatchEvent[], now: number, dayS: number): void {
  if (watch.status !== 'active') return;
  if (!watch.endingSent && now >= endingAt(watch.expiresAt, dayS)) {
    watch.endingSent = true;
    raise(watch, events, 'watch.ending', now, { expires_at: iso(watch.expiresAt) });
  }
  if (now >= watch.expiresAt) {
    watch.status = 'ended';
    raise(watch, events, 'watch.ended', now, { reason: 'expired', expires_at: iso(watch.expiresAt) });
  }
}

/** Paid: the watch starts, `watch.created` at once (so a receiver can verify its secret). */
export function activate(pending: WatchRecord, now: number, dayS: number): Transition {
  const { payment: _settled, ...paid } = pending;
  const watch = { ...paid, status: 'active' as const, version: pending.version + 1 };
  const events: WatchEvent[] = [];
  raise(watch, events, 'watch.created', now, {
    conditions: watch.conditions,
    expires_at: iso(watch.expiresAt),
    interval_s: watch.intervalS,
  });
  passTime(watch, events, now, dayS);
  recompute(watch, dayS);
  return { watch, events };
}

/** A check's outcome; `unconfirmed`: failures its result shows that a second look did not see (`confirm.ts`). */
export type CheckOutcome =
  { ok: true; result: SiteHealthResult; unconfirmed?: readonly string[] } | { ok: false; reason: string };

/** Whether the watch's next check is due at `now` (else only its days are due). */
export function checkDue(watch: WatchRecord, now: number): boolean {
  return watch.status === 'active' && now >= watch.nextCheckAt && now < watch.expiresAt;
}

/**
 * A due watch moved on at `now`: the check's outcome when one was made (`undefined`: only time
 * was due), then the passing of its days (`dayS`: `WATCH_DAY_S`); the next check at the domain's
 * first slot an interval after `checkedAt`, when the outcome was taken (a result another watch's
 * check took earlier aligns this watch with that one).
 */
export function advance(
  current: WatchRecord,
  outcome: CheckOutcome | undefined,
  now: number,
  dayS: number,
  checkedAt = now,
): Transition {
  const watch: WatchRecord = { ...current, version: current.version + 1 };
  const events: WatchEvent[] = [];
  if (outcome && watch.status === 'active') {
    watch.lastCheckedAt = now;
    if (outcome.ok) {
      watch.failures = 0;
      watch.lastResult = outcome.result;
      const { conditions, unjudged } = nextConditions(watch.conditions, outcome.result, outcome.unconfirmed);
      const change = conditionChange(watch.conditions, conditions);
      watch.conditions = conditions;
      if (change)
        raise(watch, events, 'watch.alert', now, { ...change, unjudged, conditions, result: outcome.result });
    } else {
      watch.failures += 1;
      if (watch.failures === FAILED_CHECKS_ALERT) {
        raise(watch, events, 'watch.check_failed', now, { failures: watch.failures, reason: outcome.reason });
      }
    }
    watch.nextCheckAt = nextCheckAfter(watch.domain, watch.intervalS, checkedAt);
  }
  passTime(watch, events, now, dayS);
  recompute(watch, dayS);
  return { watch, events };
}

/** Payments of extensions a record remembers, so that a copy of one extends nothing more. */
const EXTENSIONS_KEPT = 32;

/**
 * Paid for `days` more by the payment `key`: the end moves, and `watch.ending` is due again one day
 * before the new end. Id, token, secret, events and schedule stay.
 */
export function extend(
  current: WatchRecord,
  days: number,
  key: string,
  now: number,
  dayS: number,
): Transition {
  const expiresAt = current.expiresAt + days * dayS * 1000;
  const watch: WatchRecord = {
    ...current,
    days: current.days + days,
    expiresAt,
    endingSent: current.endingSent && now >= endingAt(expiresAt, dayS),
    extendedBy: [...(current.extendedBy ?? []), key].slice(-EXTENSIONS_KEPT),
    version: current.version + 1,
  };
  recompute(watch, dayS);
  return { watch, events: [] };
}

/** Cancelled by its token holder: ends now with `watch.ended` (no refund). */
export function cancel(current: WatchRecord, now: number): Transition {
  const watch: WatchRecord = { ...current, status: 'cancelled', version: current.version + 1 };
  const events: WatchEvent[] = [];
  raise(watch, events, 'watch.ended', now, { reason: 'cancelled', expires_at: iso(watch.expiresAt) });
  return { watch, events };
}

export { iso as rfc3339 };
