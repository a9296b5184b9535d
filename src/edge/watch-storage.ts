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
import type { DeliveryAttempt, DeliveryVerdict, PendingDelivery } from '../watches/delivery.ts';
import type { WatchEvent, WatchRecord } from '../watches/model.ts';
import { HISTORY_LIMIT, type WatchCommit, type WatchStore } from '../watches/ports.ts';

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
  const record = () => recordIn(storage);

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
    commit: (commit) => commitTransition(storage, commit),
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
    claimDeliveries: (now, limit, leaseMs) => claimNextDelivery(storage, now, limit, leaseMs),
    async nextDeliveryAt() {
      const pending = await deliveriesIn(storage);
      if (pending.length === 0) return null;
      const leasedUntil = Math.max(0, ...pending.map((delivery) => delivery.leaseUntil));
      return Math.max(leasedUntil, Math.min(...pending.map((delivery) => delivery.dueAt)));
    },
    recordAttempt: (delivery, attempt, verdict) => recordAttemptIn(storage, delivery, attempt, verdict),
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

const recordIn = (storage: DurableObjectStorage) => storage.get<WatchRecord>(WATCH);
const deliveriesIn = async (storage: DurableObjectStorage) => [
  ...(await storage.list<StoredDelivery>({ prefix: 'delivery:' })).values(),
];
const dropDeliveries = async (storage: DurableObjectStorage) =>
  storage.delete([...(await storage.list({ prefix: 'delivery:' })).keys()]);

/** Deletes all but the latest `HISTORY_LIMIT` entries under `prefix`. */
async function trim(storage: DurableObjectStorage, prefix: string): Promise<void> {
  const keys = [...(await storage.list({ prefix, reverse: true })).keys()].slice(HISTORY_LIMIT);
  if (keys.length > 0) await storage.delete(keys);
}

async function commitTransition(
  storage: DurableObjectStorage,
  { watch, expectedVersion, events, deliveries: enqueued, dropPending }: WatchCommit,
): Promise<boolean> {
  const stored = await recordIn(storage);
  if ((stored?.version ?? -1) !== expectedVersion) return false;
  if (dropPending) await dropDeliveries(storage);
  const gone = stored?.webhookGone === true;
  const entries: Record<string, unknown> = {
    [WATCH]: { ...watch, webhookGone: gone || watch.webhookGone },
  };
  for (const event of events)
    entries[eventKey(Number(event.id.slice(event.id.lastIndexOf('_') + 1)))] = event;
  if (!gone)
    for (const delivery of enqueued) entries[deliveryKey(delivery.eventId)] = { ...delivery, leaseUntil: 0 };
  await storage.put(entries);
  await storage.delete(LEASE);
  await trim(storage, 'event:');
  return true;
}

// The one watch's deliveries go one at a time: none while one is leased.
async function claimNextDelivery(
  storage: DurableObjectStorage,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<PendingDelivery[]> {
  const pending = await deliveriesIn(storage);
  if (limit < 1 || pending.some((delivery) => delivery.leaseUntil > now)) return [];
  const [first] = pending.filter((delivery) => delivery.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
  if (!first) return [];
  await storage.put(deliveryKey(first.eventId), { ...first, leaseUntil: now + leaseMs });
  return [withoutLease(first)];
}

async function recordAttemptIn(
  storage: DurableObjectStorage,
  delivery: PendingDelivery,
  attempt: DeliveryAttempt,
  verdict: DeliveryVerdict,
): Promise<void> {
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
    const watch = await recordIn(storage);
    await dropDeliveries(storage);
    if (watch) await storage.put(WATCH, { ...watch, webhookGone: true });
  } else {
    await storage.delete(key);
  }
  await trim(storage, 'attempt:');
}
