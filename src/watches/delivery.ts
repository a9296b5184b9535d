/**
 * Webhook deliveries as data: one pending delivery per event of a watch with a webhook, each
 * attempt's record, and what an attempt's outcome means for the next one (pure; the sender and the
 * stores do the I/O). A `410` stops every delivery to that URL (Standard Webhooks 1.0).
 */
import { MAX_ATTEMPTS, retryDelayMs } from './retry.ts';
import type { WatchEvent, WatchRecord } from './model.ts';

/** An event waiting to reach its watch's webhook. */
export interface PendingDelivery {
  /** The event id: the `webhook-id` of every attempt. */
  eventId: string;
  watchId: string;
  url: string;
  /** The event as JSON: the body of every attempt, byte for byte. */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (epoch ms). */
  dueAt: number;
  /** Tried once, never retried: the `watch.ended` of a cancelled watch. */
  once?: boolean;
}

/** The receiver host of a delivery (host and port of its URL): what the bound on concurrent attempts counts. */
export function receiverHost(delivery: Pick<PendingDelivery, 'url'>): string {
  try {
    return new URL(delivery.url).host;
  } catch {
    return delivery.url;
  }
}

/** One attempt as the status answer shows it. */
export interface DeliveryAttempt {
  event_id: string;
  attempt: number;
  /** RFC 3339. */
  at: string;
  /** The receiver's HTTP status, or null when none was read. */
  status: number | null;
  /**
   * Null when delivered; else a short kind: `http_status`, `timeout`, `blocked_address`, `network`,
   * `gone`, `host_busy` (the receiver host's slots stayed taken; Workers).
   */
  error: string | null;
}

/** What one attempt came to. */
export type SendOutcome =
  | { kind: 'answered'; status: number }
  /** No answer: `timeout`, `network`, or `blocked_address` (refused before any connection). */
  | { kind: 'failed'; error: string };

/** What follows an attempt. */
export type DeliveryVerdict =
  | { kind: 'delivered' }
  | { kind: 'retry'; dueAt: number }
  | { kind: 'given_up' }
  /** 410: this delivery and every other to the URL stop; the watch's `webhookGone` is set. */
  | { kind: 'gone' };

/**
 * The deliveries a transition's events need: none for a pull-only watch or one whose URL is gone.
 * `once`: each is tried once (a cancelled watch's `watch.ended`).
 */
export function deliveriesFor(
  watch: WatchRecord,
  events: readonly WatchEvent[],
  now: number,
  once = false,
): PendingDelivery[] {
  const url = watch.webhookUrl;
  if (url === null || watch.webhookGone) return [];
  return events.map((event) => ({
    eventId: event.id,
    watchId: watch.id,
    url,
    body: JSON.stringify(event),
    attempts: 0,
    dueAt: now,
    ...(once ? { once } : {}),
  }));
}

/** The verdict and the attempt's record after `delivery`'s next attempt came to `outcome` at `now`. */
export function judgeAttempt(
  delivery: PendingDelivery,
  outcome: SendOutcome,
  now: number,
  dayS: number,
): { verdict: DeliveryVerdict; attempt: DeliveryAttempt } {
  const attemptNo = delivery.attempts + 1;
  const at = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const record = (status: number | null, error: string | null): DeliveryAttempt => ({
    event_id: delivery.eventId,
    attempt: attemptNo,
    at,
    status,
    error,
  });
  if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
    return { verdict: { kind: 'delivered' }, attempt: record(outcome.status, null) };
  }
  if (outcome.kind === 'answered' && outcome.status === 410) {
    return { verdict: { kind: 'gone' }, attempt: record(410, 'gone') };
  }
  const attempt =
    outcome.kind === 'answered' ? record(outcome.status, 'http_status') : record(null, outcome.error);
  const delay = attemptNo < MAX_ATTEMPTS && !delivery.once ? retryDelayMs(attemptNo, dayS) : null;
  return { verdict: delay === null ? { kind: 'given_up' } : { kind: 'retry', dueAt: now + delay }, attempt };
}
