/**
 * A `WatchStore` of one watch in its Durable Object's storage (SQLite-backed, `wrangler.jsonc`):
 * the record, its latest events and attempts, and its pending deliveries, each under its own key.
 * The object runs one request at a time between awaits, and writes made together are committed
 * together, so a commit (the record, its events and their deliveries) lands whole or not at all.
 *
 *   watch              the record
 *   lease              until when a claim of the watch holds (epoch ms)
 *   event:{seq}        an event, by sequence number (zero-padded: key order is sequence order)
 *   attempt:{n}        a delivery attempt, numbered in the order they were made
 *   delivery:{event}   a pending delivery, with until when a claim of it holds
 */
import type { DurableObjectStorage } from 'cloudflare:workers';
import type { DeliveryAttempt, PendingDelivery } from '../watches/delivery.ts';
import type { WatchEvent, WatchRecord } from '../watches/model.ts';
import { HISTORY_LIMIT, type WatchStore } from '../watches/ports.ts';

interface StoredDelivery extends PendingDelivery {
  leaseUntil: number;
}

const WATCH = 'watch';
const LEASE = 'lease';
const ATTEMPTS_MADE = 'attempts-made';
const pad = (n: number) => String(n).padStart(9, '0');
const eventKey = (seq: number) => `event:${pad(seq)}`;
const attemptKey = (n: number) => `attempt:${pad(n)}`;
const deliveryKey = (eventId: string) => `delivery:${eventId}`;

function withoutLease({ leaseUntil: _, ...delivery }: StoredDelivery): PendingDelivery {
  return delivery;
}

export function durableWatchStore(storage: DurableObjectStorage): WatchStore {
  const record = () => storage.get<WatchRecord>(WATCH);
  const deliveries = async () => [...(await storage.list<StoredDelivery>({ prefix: 'delivery:' })).values()];

  /** Deletes all but the latest `HISTORY_LIMIT` entries under `prefix`. */
  async function trim(prefix: string): Promise<void> {
    const keys = [...(await storage.list({ prefix, reverse: true })).keys()].slice(HISTORY_LIMIT);
    if (keys.length > 0) await storage.delete(keys);
  }

  return {
    async insert(watch) {
      const stored = await record();
      if (stored) return stored;
      await storage.put(WATCH, watch);
      return watch;
    },
    async get(id) {
      const stored = await record();
      return stored?.id === id ? stored : null;
    },
    async discardPending(id) {
      const stored = await record();
      if (stored?.id !== id || stored.status !== 'pending') return false;
      await storage.deleteAll();
      return true;
    },
    async commit({ watch, expectedVersion, events, deliveries: enqueued, dropPending }) {
      const stored = await record();
      if ((stored?.version ?? -1) !== expectedVersion) return false;
      if (dropPending) await storage.delete([...(await storage.list({ prefix: 'delivery:' })).keys()]);
      const gone = stored?.webhookGone === true;
      const entries: Record<string, unknown> = {
        [WATCH]: { ...watch, webhookGone: gone || watch.webhookGone },
      };
      for (const event of events)
        entries[eventKey(Number(event.id.slice(event.id.lastIndexOf('_') + 1)))] = event;
      if (!gone)
        for (const delivery of enqueued)
          entries[deliveryKey(delivery.eventId)] = { ...delivery, leaseUntil: 0 };
      await storage.put(entries);
      await storage.delete(LEASE);
      await trim('event:');
      return true;
    },
    async claimDue(now, limit, leaseMs) {
      const [watch, lease] = await Promise.all([record(), storage.get<number>(LEASE)]);
      if (limit < 1 || watch?.status !== 'active' || watch.dueAt > now || (lease ?? 0) > now) return [];
      await storage.put(LEASE, now + leaseMs);
      return [watch];
    },
    async nextDueAt() {
      const [watch, lease] = await Promise.all([record(), storage.get<number>(LEASE)]);
      return watch?.status === 'active' ? Math.max(watch.dueAt, lease ?? 0) : null;
    },
    async events(_watchId, afterSeq, limit) {
      const newestFirst = await storage.list<WatchEvent>({
        start: eventKey(afterSeq + 1),
        end: 'event;',
        reverse: true,
        limit,
      });
      return [...newestFirst.values()].reverse();
    },
    async attempts(_watchId, limit) {
      const newestFirst = await storage.list<DeliveryAttempt>({ prefix: 'attempt:', reverse: true, limit });
      return [...newestFirst.values()].reverse();
    },
    // The one watch's deliveries go one at a time: none while one is leased.
    async claimDeliveries(now, limit, leaseMs) {
      const pending = await deliveries();
      if (limit < 1 || pending.some((delivery) => delivery.leaseUntil > now)) return [];
      const [first] = pending.filter((delivery) => delivery.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
      if (!first) return [];
      await storage.put(deliveryKey(first.eventId), { ...first, leaseUntil: now + leaseMs });
      return [withoutLease(first)];
    },
    async nextDeliveryAt() {
      const pending = await deliveries();
      if (pending.length === 0) return null;
      const leasedUntil = Math.max(0, ...pending.map((delivery) => delivery.leaseUntil));
      return Math.max(leasedUntil, Math.min(...pending.map((delivery) => delivery.dueAt)));
    },
    async recordAttempt(delivery, attempt, verdict) {
      const made = ((await storage.get<number>(ATTEMPTS_MADE)) ?? 0) + 1;
      await storage.put<unknown>({ [ATTEMPTS_MADE]: made, [attemptKey(made)]: attempt });
      const key = deliveryKey(delivery.eventId);
      if (verdict.kind === 'retry') {
        if (await storage.get(key)) {
          await storage.put(key, {
            ...delivery,
            attempts: delivery.attempts + 1,
            dueAt: verdict.dueAt,
            leaseUntil: 0,
          });
        }
      } else if (verdict.kind === 'gone') {
        const watch = await record();
        await storage.delete([...(await storage.list({ prefix: 'delivery:' })).keys()]);
        if (watch) await storage.put(WATCH, { ...watch, webhookGone: true });
      } else {
        await storage.delete(key);
      }
      await trim('attempt:');
    },
    async pendingOpenedBy(openedBy, limit) {
      const watch = await record();
      return limit > 0 && watch?.status === 'pending' && watch.createdAt <= openedBy ? [watch] : [];
    },
    async countByStatus() {
      const counts = { pending: 0, active: 0, ended: 0, cancelled: 0 };
      const watch = await record();
      if (watch) counts[watch.status] += 1;
      return counts;
    },
    async close() {},
  };
}
