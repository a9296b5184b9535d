/**
 * The bound on concurrent webhook attempts to one receiver host where no one process sees them
 * all (the Worker: one object per watch, each delivering from its own alarm). Slots are lent by a
 * place every sender shares (a Durable Object per receiver host), each for a lease longer than an
 * attempt can last, so a holder cut off mid-attempt frees its slot by itself. A sender waits for a
 * slot, asking again and again less often; one that waits longer than its claim can afford counts
 * the attempt as failed (`host_busy`), retried on the usual schedule. A lender that cannot be asked
 * bounds nothing: the attempt goes out, as an alert matters more than the bound.
 */
import { receiverHost } from './delivery.ts';
import type { WebhookSender } from './ports.ts';
import { DELIVERY_TIMEOUT_MS } from './sender.ts';

/** A slot outlives the longest attempt (the sender's timeout) by a margin. */
export const HOST_SLOT_LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000;
/** How long an attempt waits for a slot: well inside a claim's lease (60 s on the Worker). */
export const HOST_SLOT_WAIT_MS = 30_000;
const FIRST_POLL_MS = 100;
const LAST_POLL_MS = 1_000;

/** Holder → end of its lease (epoch ms): the slots of one receiver host. */
export type HostSlotLeases = Map<string, number>;

/**
 * Lends `holder` one of `limit` slots until `now + leaseMs` (a holder asking again renews its own);
 * false while every slot is held. Expired leases are dropped first.
 */
export function leaseHostSlot(
  leases: HostSlotLeases,
  holder: string,
  limit: number,
  leaseMs: number,
  now: number,
): boolean {
  for (const [other, until] of leases) if (until <= now) leases.delete(other);
  if (!leases.has(holder) && leases.size >= limit) return false;
  leases.set(holder, now + leaseMs);
  return true;
}

/** One receiver host's slots, as a sender asks for them. */
export interface HostSlots {
  acquire(holder: string): Promise<boolean>;
  release(holder: string): Promise<void>;
}

export interface HostBoundOptions {
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `send`, each attempt holding a slot of its receiver host from `slotsOf` while it runs. */
export function boundedByHost(
  send: WebhookSender,
  slotsOf: (host: string) => HostSlots,
  options: HostBoundOptions = {},
): WebhookSender {
  const { waitMs = HOST_SLOT_WAIT_MS, sleep = pause, now = Date.now } = options;
  return async (request) => {
    const slots = slotsOf(receiverHost(request));
    const holder = crypto.randomUUID();
    const giveUpAt = now() + waitMs;
    let pollMs = FIRST_POLL_MS;
    for (;;) {
      const granted = await slots.acquire(holder).catch(() => null);
      if (granted === null) return send(request);
      if (granted) break;
      if (now() + pollMs > giveUpAt) return { kind: 'failed', error: 'host_busy' };
      await sleep(pollMs);
      pollMs = Math.min(pollMs * 2, LAST_POLL_MS);
    }
    try {
      return await send(request);
    } finally {
      await slots.release(holder).catch(() => {});
    }
  };
}
