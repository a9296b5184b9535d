/**
 * The two loops that keep a `WatchStore`'s word on a Node instance: checks and deliveries. Each
 * claims due work with a lease, so several instances can share one store (each watch checked and
 * each event delivered by one of them at a time) and a killed instance's work is claimed again
 * when its lease runs out. Watches of a domain are due at the domain's slot (`slots.ts`), so a
 * claim holds them together and checks the domain once; a claim that finds a domain checked within
 * the round window (the rest of a domain a claim's limit cut, a watch claimed late) takes that
 * outcome under the rules of a shared round (`round-check.ts`). At most `concurrency` checks run at once. A delivery starts as soon as it is due, whatever
 * other receivers do: one attempt in flight per watch (the store's claim), a few per receiver host.
 */
import type { Logger } from 'pino';
import { deliveriesFor, judgeAttempt, type PendingDelivery, receiverHost } from './delivery.ts';
import type { WatchMetrics } from './metrics.ts';
import { noWatchMetrics } from './metrics.ts';
import { advance, type CheckOutcome, checkDue, type WatchRecord } from './model.ts';
import type { WatchCheck, WatchStore, WebhookSender } from './ports.ts';
import { keptFor, roundWindowMs } from './round-check.ts';
import { signingGeneration } from './rotations.ts';
import type { WatchSecrets } from './secrets.ts';
import { webhookHeaders } from './signature.ts';

export interface SchedulerDeps {
  store: WatchStore;
  check: WatchCheck;
  send: WebhookSender;
  secrets: WatchSecrets;
  /** `WATCH_DAY_S`. */
  dayS: number;
  logger: Logger;
  metrics?: WatchMetrics;
  now?: () => number;
  /** Site-health checks at once (default 4). */
  concurrency?: number;
  /** Webhook attempts in flight at once, waiting ones included (default 256). */
  deliveryConcurrency?: number;
  /** Webhook attempts in flight at once to one receiver host (default 4). */
  hostConcurrency?: number;
  /** Watches or deliveries claimed per round (default 256). */
  batch?: number;
  /** How long a claim hides its work from other claims (default 5 min: beyond a check's budget). */
  leaseMs?: number;
  /** Longest sleep between looks at the store, so work another instance added is seen (default 30 s). */
  maxSleepMs?: number;
}

export interface WatchScheduler {
  start(): void;
  /** Look at the store now: a watch was activated or cancelled, or events were enqueued. */
  wake(): void;
  /** Stops claiming; resolves when the work in hand is done. */
  stop(): Promise<void>;
  /**
   * One round of checks, then one of deliveries, without the loops: for a runtime that wakes
   * itself when work is due (a Durable Object's alarm).
   */
  runOnce(): Promise<void>;
}

/**
 * Webhook attempts one instance holds at once. Each watch has at most one in flight (the store's
 * claim), so a receiver that hangs holds one slot of its own watch for the 15 s timeout; the bound
 * is far above what hanging receivers hold unless thousands of watches hang at once.
 */
export const DELIVERY_CONCURRENCY = 256;
/** Webhook attempts in flight to one receiver host (the URL's host and port) from one instance. */
export const HOST_CONCURRENCY = 4;

/** Runs `work` over `items` with at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

/**
 * Lets timers and I/O run before the next round. A store that answers synchronously (SQLite) and
 * checks that answer at once would otherwise chain rounds as microtasks for as long as work is
 * due — with watches spread over the interval, that is always — and starve the process.
 */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * What a round found: `more` work due at once, none (`sleep` until the next is due), or no room to
 * take what is due (`wait` until woken: work in hand ended).
 */
type Round = 'more' | 'sleep' | 'wait';

/** A loop that runs `round` until it reports no more work, then sleeps until due or woken. */
function createLoop(
  round: () => Promise<Round>,
  nextAt: () => Promise<number | null>,
  now: () => number,
  maxSleepMs: number,
  logger: Logger,
) {
  let running = false;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let done: Promise<void> = Promise.resolve();

  async function sleep(untilWoken: boolean): Promise<void> {
    if (woken) {
      woken = false;
      return;
    }
    const at = untilWoken ? null : await nextAt().catch(() => null);
    const ms = at === null ? maxSleepMs : Math.min(maxSleepMs, Math.max(0, at - now()));
    if (ms === 0) return nextTurn();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), ms);
      const finish = () => {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      };
      wakeUp = finish;
    });
    woken = false;
  }

  async function run(): Promise<void> {
    while (running) {
      const found = await round().catch((error: unknown): Round => {
        logger.error({ err: error }, 'watch round failed');
        return 'sleep';
      });
      if (!running) break;
      await (found === 'more' ? nextTurn() : sleep(found === 'wait'));
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      done = run();
    },
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await done;
    },
  };
}

/** A check's outcome, when the check began, and until when later claims may take it. */
interface Checked {
  outcome: CheckOutcome;
  at: number;
  keptUntil: number;
}

/**
 * Most outcomes kept for later claims: a claim's worth of domains many times over, yet a bounded
 * memory (a result is about 6.5 KB, so some 27 MB at most).
 */
const RECENT_OUTCOMES = 4_096;

function checkOutcome(outcome: Awaited<ReturnType<WatchCheck>>): CheckOutcome {
  if (outcome.type === 'result') {
    const { result, unconfirmed } = outcome;
    return unconfirmed ? { ok: true, result, unconfirmed } : { ok: true, result };
  }
  return { ok: false, reason: outcome.type === 'invalid_input' ? outcome.reason.code : outcome.type };
}

/** The deps with every default filled in: what the rounds read. */
type Scheduling = Required<SchedulerDeps>;

function withDefaults(deps: SchedulerDeps): Scheduling {
  return {
    ...deps,
    metrics: deps.metrics ?? noWatchMetrics,
    now: deps.now ?? Date.now,
    concurrency: deps.concurrency ?? 4,
    deliveryConcurrency: deps.deliveryConcurrency ?? DELIVERY_CONCURRENCY,
    hostConcurrency: deps.hostConcurrency ?? HOST_CONCURRENCY,
    batch: deps.batch ?? 256,
    leaseMs: deps.leaseMs ?? 300_000,
    maxSleepMs: deps.maxSleepMs ?? 30_000,
  };
}

export function createWatchScheduler(deps: SchedulerDeps): WatchScheduler {
  const scheduling = withDefaults(deps);
  const { store, now, maxSleepMs, logger } = scheduling;
  /** Recent outcomes by domain, oldest first: what a later claim of the domain takes while kept. */
  const recent = new Map<string, Checked>();
  const deliveries: Deliveries = {
    inFlight: new Set(),
    perHost: new Map(),
    waiting: new Map(),
    held: 0,
    wake: () => deliveryLoop.wake(),
  };
  const checkRound = () => checkRoundOf(scheduling, recent, deliveries.wake);
  const deliveryRound = () => deliveryRoundOf(scheduling, deliveries);

  const checkLoop = createLoop(checkRound, () => store.nextDueAt(), now, maxSleepMs, logger);
  const deliveryLoop = createLoop(deliveryRound, () => store.nextDeliveryAt(), now, maxSleepMs, logger);

  return {
    start() {
      checkLoop.start();
      deliveryLoop.start();
    },
    wake() {
      checkLoop.wake();
      deliveryLoop.wake();
    },
    async stop() {
      await Promise.all([checkLoop.stop(), deliveryLoop.stop()]);
      await drained(deliveries);
    },
    async runOnce() {
      await checkRound();
      await deliveryRound();
      await drained(deliveries);
    },
  };
}

async function runCheck({ check, metrics, logger }: Scheduling, domain: string): Promise<CheckOutcome> {
  try {
    const outcome = checkOutcome(await check(domain));
    metrics.check(outcome.ok ? 'result' : outcome.reason);
    return outcome;
  } catch (error) {
    logger.error({ err: error, domain }, 'watch check threw');
    metrics.check('error');
    return { ok: false, reason: 'internal_error' };
  }
}

/** Commits `watch`'s next state; true when that enqueued deliveries. */
async function moveOn(
  { store, now, dayS, metrics }: Scheduling,
  watch: WatchRecord,
  checked: Checked | undefined,
): Promise<boolean> {
  const at = now();
  const { watch: next, events } = advance(watch, checked?.outcome, at, dayS, checked?.at);
  const deliveries = deliveriesFor(next, events, at);
  const committed = await store.commit({ watch: next, expectedVersion: watch.version, events, deliveries });
  if (!committed) return false;
  for (const event of events) metrics.event(event.type);
  return deliveries.length > 0;
}

function forget(recent: Map<string, Checked>, at: number): void {
  for (const [domain, checked] of recent) {
    if (checked.keptUntil > at && recent.size <= RECENT_OUTCOMES) break;
    recent.delete(domain);
  }
}

/** The outcome for the `checking` watches of `domain`: a recent one while kept, else a check. */
async function roundOutcome(
  scheduling: Scheduling,
  recent: Map<string, Checked>,
  domain: string,
  checking: WatchRecord[],
  claimedAt: number,
): Promise<Checked> {
  const earlier = recent.get(domain);
  if (earlier && claimedAt < earlier.keptUntil) return earlier;
  const windowMs = roundWindowMs(Math.min(...checking.map((watch) => watch.intervalS)));
  const at = scheduling.now();
  const outcome = await runCheck(scheduling, domain);
  const checked = { outcome, at, keptUntil: at + keptFor(outcome.ok, windowMs) };
  recent.delete(domain);
  recent.set(domain, checked);
  return checked;
}

/** Claims the watches due, checks each domain once and moves its watches on; `enqueued` when that made deliveries. */
async function checkRoundOf(
  scheduling: Scheduling,
  recent: Map<string, Checked>,
  enqueued: () => void,
): Promise<Round> {
  const { store, now, batch, leaseMs, metrics, logger } = scheduling;
  const claimedAt = now();
  const claimed = await store.claimDue(claimedAt, batch, leaseMs);
  if (claimed.length === 0) return 'sleep';
  const byDomain = new Map<string, WatchRecord[]>();
  for (const watch of claimed) {
    const same = byDomain.get(watch.domain);
    if (same) same.push(watch);
    else byDomain.set(watch.domain, [watch]);
  }
  forget(recent, claimedAt);
  let moved = false;
  await pool([...byDomain], scheduling.concurrency, async ([domain, watches]) => {
    const checking = watches.filter((watch) => checkDue(watch, claimedAt));
    for (const watch of checking) metrics.checkLag(Math.max(0, claimedAt - watch.nextCheckAt) / 1000);
    const checked =
      checking.length > 0 ? await roundOutcome(scheduling, recent, domain, checking, claimedAt) : undefined;
    for (const watch of watches) {
      const enqueuedSome = await moveOn(
        scheduling,
        watch,
        checking.includes(watch) ? checked : undefined,
      ).catch((error: unknown) => {
        logger.error({ err: error, watch: watch.id }, 'could not commit a watch check');
        return false;
      });
      moved ||= enqueuedSome;
    }
  });
  if (moved) enqueued();
  return claimed.length === batch ? 'more' : 'sleep';
}

/** The deliveries one instance holds, and the delivery loop to wake as one ends. */
interface Deliveries {
  inFlight: Set<Promise<void>>;
  perHost: Map<string, number>;
  /** Claimed deliveries whose host has its bound in flight, by host: each starts as one there ends. */
  waiting: Map<string, PendingDelivery[]>;
  /** Deliveries this instance holds: in flight or waiting. */
  held: number;
  wake: () => void;
}

async function deliver(
  { store, secrets, send, now, dayS, metrics }: Scheduling,
  delivery: PendingDelivery,
): Promise<void> {
  const at = now();
  metrics.deliveryLag(Math.max(0, at - delivery.dueAt) / 1000);
  const watch = await store.get(delivery.watchId);
  const secret = await secrets.webhookSecret(delivery.watchId, signingGeneration(watch, delivery.body));
  const headers = await webhookHeaders(secret, delivery.eventId, Math.floor(at / 1000), delivery.body);
  const outcome = await send({ url: delivery.url, headers: { ...headers }, body: delivery.body });
  const { verdict, attempt } = judgeAttempt(delivery, outcome, now(), dayS);
  await store.recordAttempt(delivery, attempt, verdict);
  metrics.delivery(verdict.kind);
}

function start(
  scheduling: Scheduling,
  deliveries: Deliveries,
  delivery: PendingDelivery,
  host: string,
): void {
  const { inFlight, perHost, waiting } = deliveries;
  perHost.set(host, (perHost.get(host) ?? 0) + 1);
  const run = deliver(scheduling, delivery)
    .catch((error: unknown) => {
      scheduling.logger.error({ err: error, event: delivery.eventId }, 'webhook delivery failed to record');
    })
    .finally(() => {
      inFlight.delete(run);
      deliveries.held -= 1;
      const left = (perHost.get(host) ?? 1) - 1;
      if (left > 0) perHost.set(host, left);
      else perHost.delete(host);
      const queue = waiting.get(host);
      const next = queue?.shift();
      if (queue?.length === 0) waiting.delete(host);
      if (next) start(scheduling, deliveries, next, host);
      deliveries.wake();
    });
  inFlight.add(run);
}

function dispatch(scheduling: Scheduling, deliveries: Deliveries, delivery: PendingDelivery): void {
  deliveries.held += 1;
  const host = receiverHost(delivery);
  if ((deliveries.perHost.get(host) ?? 0) < scheduling.hostConcurrency)
    return start(scheduling, deliveries, delivery, host);
  const queue = deliveries.waiting.get(host);
  if (queue) queue.push(delivery);
  else deliveries.waiting.set(host, [delivery]);
}

/** Claims what is due and starts it at once: no delivery waits for another to end but its own watch's. */
async function deliveryRoundOf(scheduling: Scheduling, deliveries: Deliveries): Promise<Round> {
  const { store, now, batch, leaseMs, deliveryConcurrency } = scheduling;
  const room = Math.min(batch, deliveryConcurrency - deliveries.held);
  if (room <= 0) return 'wait';
  const claimed = await store.claimDeliveries(now(), room, leaseMs);
  for (const delivery of claimed) dispatch(scheduling, deliveries, delivery);
  return claimed.length === room ? 'more' : 'sleep';
}

/** Resolves once every delivery this instance holds has been attempted. */
async function drained({ inFlight }: Deliveries): Promise<void> {
  while (inFlight.size > 0) await Promise.all(inFlight);
}
