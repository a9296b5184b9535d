/**
 * The `WatchService` over a `WatchStore` (Node: SQLite on one instance, Redis for several): the
 * paid call opens a pending watch with its first check, activates it once settled or discards it,
 * and the management calls read and cancel it. `wake` tells the scheduler new work is due.
 */
import type { Logger } from 'pino';
import { deliveriesFor } from './delivery.ts';
import type { WatchMetrics } from './metrics.ts';
import { noWatchMetrics } from './metrics.ts';
import { activate, cancel, extend, newWatch, type Transition, type WatchRecord } from './model.ts';
import {
  HISTORY_LIMIT,
  type OpenedWatch,
  type OpenWatch,
  type WatchCheck,
  type WatchService,
  type WatchStore,
} from './ports.ts';
import { rotate, tokenGenerationOf } from './rotations.ts';
import type { WatchSecrets } from './secrets.ts';

export interface StoreServiceDeps {
  store: WatchStore;
  /** The first check, inside the paid call. */
  check: WatchCheck;
  secrets: WatchSecrets;
  intervalS: number;
  dayS: number;
  wake: () => void;
  logger: Logger;
  metrics?: WatchMetrics;
  now?: () => number;
}

/** Commits attempts at a transition in the face of concurrent ones (a check committing meanwhile). */
const COMMIT_TRIES = 5;

export function createStoreWatchService(deps: StoreServiceDeps): WatchService {
  const { store, secrets, dayS, wake } = deps;
  const metrics = deps.metrics ?? noWatchMetrics;
  const now = deps.now ?? Date.now;

  const transitions: Transitions = { store, metrics, now, wake };

  return {
    open: (request) => openWatch(deps, now, request),

    activate: (id) =>
      transitWatch(
        transitions,
        id,
        (watch) => watch.status === 'pending',
        (watch, at) => activate(watch, at, dayS),
      ),

    async discard(id) {
      await store.discardPending(id);
    },

    async authorized(id, token) {
      const watch = await store.get(id);
      if (!watch || watch.status === 'pending') return null;
      return (await secrets.tokenMatches(id, token, tokenGenerationOf(watch))) ? watch : null;
    },

    async watch(id) {
      const watch = await store.get(id);
      return watch && watch.status !== 'pending' ? watch : null;
    },

    rotate: (id, what) =>
      transitWatch(
        transitions,
        id,
        (watch) => watch.status !== 'pending',
        (watch, at) => rotate(watch, what, at),
      ),

    async history(id, afterSeq) {
      const [events, attempts] = await Promise.all([
        store.events(id, afterSeq, HISTORY_LIMIT),
        store.attempts(id, HISTORY_LIMIT),
      ]);
      return { events, attempts };
    },

    cancel: (id) =>
      transitWatch(
        transitions,
        id,
        (watch) => watch.status === 'active',
        (watch, at) => cancel(watch, at),
        true,
      ),

    extend: (id, days, key) =>
      transitWatch(
        transitions,
        id,
        (watch) => watch.status === 'active' && !watch.extendedBy?.includes(key),
        (watch, at) => extend(watch, days, key, at, dayS),
      ),
  };
}

/** What a transition of a stored watch needs: the store, the clock, and whom to tell. */
interface Transitions {
  store: WatchStore;
  metrics: WatchMetrics;
  now: () => number;
  wake: () => void;
}

/**
 * Applies `transition` to the stored watch while `applies` holds; the watch as it stands after.
 * `ending`: the watch's pending deliveries are dropped and its new events tried once.
 */
async function transitWatch(
  { store, metrics, now, wake }: Transitions,
  id: string,
  applies: (watch: WatchRecord) => boolean,
  transition: (watch: WatchRecord, at: number) => Transition,
  ending = false,
): Promise<WatchRecord | null> {
  for (let tries = 0; tries < COMMIT_TRIES; tries += 1) {
    const current = await store.get(id);
    if (!current || !applies(current)) return current;
    const at = now();
    const { watch, events } = transition(current, at);
    const deliveries = deliveriesFor(watch, events, at, ending);
    const commit = { watch, expectedVersion: current.version, events, deliveries };
    if (await store.commit(ending ? { ...commit, dropPending: true } : commit)) {
      for (const event of events) metrics.event(event.type);
      wake();
      return watch;
    }
  }
  throw new Error(`watch ${id} kept changing during a transition`);
}

/** Checks the domain and stores the pending watch, unless `id` was opened already. */
async function openWatch(
  { store, check, intervalS, dayS }: StoreServiceDeps,
  now: () => number,
  { id, domain, days, webhookUrl, payment }: OpenWatch,
): Promise<OpenedWatch> {
  const existing = await store.get(id);
  if (existing) return { kind: 'opened', watch: existing, created: false };
  const outcome = await check(domain);
  if (outcome.type !== 'result') return { kind: 'check_failed', outcome };
  const pending = newWatch({
    id,
    domain,
    days,
    webhookUrl,
    intervalS,
    dayS,
    now: now(),
    result: outcome.result,
    ...(payment ? { payment } : {}),
  });
  const stored = await store.insert(pending);
  return { kind: 'opened', watch: stored, created: stored.version === pending.version };
}
