/**
 * Watches on Workers: one Durable Object per watch, named by the watch's id. Inside it run the same
 * `WatchService` and scheduler as on Node, over a store of that one watch (`watch-storage.ts`), so
 * the events, their ids and their signatures are the ones Node makes. The object's alarm is set to
 * the next moment work is due — a check, `watch.ending` or the end, a delivery or its retry — and
 * runs one round then; the round's check comes from the domain's object (`domain-check-object.ts`),
 * which shares it with every watch of the domain; each delivery attempt holds a slot of its receiver
 * host's object (`receiver-host-object.ts`), so one host gets a bounded number of attempts at once
 * from all the objects together. An alarm that fails (or whose isolate dies) is retried by the runtime; work
 * claimed by the failed run is claimed again once its lease runs out: a delivery repeated carries
 * the same `webhook-id`. A watch still pending once its paid call must have ended is judged from
 * the chain at its alarm (`watches/pending-sweep.ts`), and again every sweep interval until decided.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import type { Logger } from 'pino';
import { createChainView, rpcClient } from '../payments/chain/chain-view.ts';
import type { OpenWatch, WatchService } from '../watches/ports.ts';
import {
  createPendingSweep,
  type PendingSweep,
  SWEEP_EVERY_MS,
  SWEEP_PENDING_AFTER_MS,
} from '../watches/pending-sweep.ts';
import { roundWindowMs } from '../watches/round-check.ts';
import { type Rotated, tokenGenerationOf } from '../watches/rotations.ts';
import { recordingPayers, siteHealthCheck, type WatchRuntimeFactory } from '../watches/runtime.ts';
import { createWatchScheduler, type WatchScheduler } from '../watches/scheduler.ts';
import { createWatchSecrets, type WatchSecrets } from '../watches/secrets.ts';
import { createWebhookSender } from '../watches/sender.ts';
import { createStoreWatchService } from '../watches/store-service.ts';
import type { WatchStore } from '../watches/ports.ts';
import type { WalletLedger } from '../watches/wallet-ledger.ts';
import { createConsoleLogger } from './console-logger.ts';
import { type DomainCheckObject, durableRoundCheck } from './domain-check-object.ts';
import { type EdgeVariables, edgeConfig } from './edge-config.ts';
import { edgeRunners } from './edge-runners.ts';
import { durableWatchStore } from './watch-storage.ts';
import { durableHostSlots, type ReceiverHostObject } from './receiver-host-object.ts';
import { boundedByHost } from '../watches/host-slots.ts';
import { reportWatchStatus, type WatchCountObject, watchCounter } from './watch-count-object.ts';

/**
 * A claim's lease inside the object: longer than a check's budget or a delivery's 15 s, short
 * enough that an alarm run cut off mid-delivery is repeated within minutes.
 */
const LEASE_MS = 60_000;

/** The watch key of the service's variables; the Worker must be configured with it. */
function secretsOf(env: EdgeVariables): WatchSecrets {
  const { secretKey } = edgeConfig(env).watches;
  if (!secretKey) throw new Error('WATCH_SECRET_KEY is required on Workers');
  return createWatchSecrets(secretKey);
}

/** The bindings a watch object uses beside the service's variables (`edge-env.ts` declares them all). */
interface WatchObjectEnv extends EdgeVariables {
  DOMAIN_CHECKS: DurableObjectNamespace<DomainCheckObject>;
  /** The `website_checks_watches` gauge's counter; without it, nothing is counted. */
  WATCH_COUNTS?: DurableObjectNamespace<WatchCountObject>;
  /** The receiver hosts' slots; without it, attempts are bounded per watch only. */
  RECEIVER_HOSTS?: DurableObjectNamespace<ReceiverHostObject>;
}

interface Parts {
  logger: Logger;
  store: WatchStore;
  service: WatchService;
  scheduler: WatchScheduler;
  /** Absent without an RPC URL to read the chain with. */
  sweep?: PendingSweep;
}

export class WatchObject extends DurableObject<WatchObjectEnv> {
  #parts: Parts | undefined;
  /** The lease of a claimed check or delivery (a test entry shortens it). */
  protected readonly leaseMs: number = LEASE_MS;

  #built(): Parts {
    if (this.#parts) return this.#parts;
    const config = edgeConfig(this.env);
    const logger = createConsoleLogger(config.logLevel);
    const runners = edgeRunners(config);
    // The paid call's first check is the buyer's own; a round's is the domain's object's, shared
    // by every watch of the domain.
    const check = siteHealthCheck(runners);
    const secrets = secretsOf(this.env);
    const store = durableWatchStore(this.ctx.storage);
    const { intervalS, dayS } = config.watches;
    const wake = () => void this.#schedule();
    const service = createStoreWatchService({ store, check, secrets, intervalS, dayS, wake, logger });
    const { mode, asset } = config.x402;
    const rpcUrl = mode.kind === 'local-chain' ? undefined : mode.rpcUrl;
    this.#parts = {
      logger,
      store,
      service,
      ...(rpcUrl
        ? {
            sweep: createPendingSweep({
              store,
              service,
              chain: createChainView(rpcClient(rpcUrl)),
              asset,
              logger,
            }),
          }
        : {}),
      scheduler: createWatchScheduler({
        store,
        check: durableRoundCheck(this.env.DOMAIN_CHECKS, roundWindowMs(intervalS)),
        send: this.env.RECEIVER_HOSTS
          ? boundedByHost(createWebhookSender(runners.publicFetch), durableHostSlots(this.env.RECEIVER_HOSTS))
          : createWebhookSender(runners.publicFetch),
        secrets,
        dayS,
        logger,
        leaseMs: this.leaseMs,
      }),
    };
    return this.#parts;
  }

  /** Sets the alarm to when work is next due (at once when it is due already); none when nothing is. */
  async #schedule(): Promise<void> {
    const { store } = this.#built();
    const times = (
      await Promise.all([store.nextDueAt(), store.nextDeliveryAt(), this.#nextSweepAt()])
    ).filter((at): at is number => at !== null);
    if (times.length > 0) await this.ctx.storage.setAlarm(Math.max(Date.now(), Math.min(...times)));
  }

  /** When a pending watch is next judged from the chain: once its paid call must have ended, then every interval. */
  async #nextSweepAt(): Promise<number | null> {
    if (!this.#built().sweep) return null;
    // The object's one watch, if it is pending.
    const [watch] = await this.#built().store.pendingOpenedBy(Number.MAX_SAFE_INTEGER, 1);
    if (!watch) return null;
    const due = watch.createdAt + SWEEP_PENDING_AFTER_MS;
    return due > Date.now() ? due : Date.now() + SWEEP_EVERY_MS;
  }

  /** Tells the counter object (the `website_checks_watches` gauge) this watch's status, if it changed. */
  async #counted<T>(result: T): Promise<T> {
    const { store, logger } = this.#built();
    await reportWatchStatus(this.ctx, this.env.WATCH_COUNTS, store).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not count a watch; it is counted on its next run'),
    );
    return result;
  }

  async open(request: OpenWatch) {
    const opened = await this.#built().service.open(request);
    await this.#schedule();
    return this.#counted(opened);
  }

  async activate(id: string) {
    return this.#counted(await this.#built().service.activate(id));
  }

  async discard(id: string) {
    return this.#counted(await this.#built().service.discard(id));
  }

  /** The watch, or null while it is pending or when the object holds another (never: named by id). */
  async watch(id: string) {
    const watch = await this.#built().store.get(id);
    return watch && watch.status !== 'pending' ? watch : null;
  }

  history(id: string, afterSeq: number) {
    return this.#built().service.history(id, afterSeq);
  }

  async cancel(id: string) {
    return this.#counted(await this.#built().service.cancel(id));
  }

  async rotate(id: string, what: Rotated) {
    const rotated = await this.#built().service.rotate(id, what);
    await this.#schedule();
    return rotated;
  }

  async extend(id: string, days: number, key: string) {
    const extended = await this.#built().service.extend(id, days, key);
    await this.#schedule();
    return extended;
  }

  async alarm(): Promise<void> {
    const { sweep, scheduler } = this.#built();
    await sweep?.();
    await scheduler.runOnce();
    await this.#schedule();
    await this.#counted(undefined);
  }
}

/**
 * The Worker's `WatchService`: every call goes to the watch's own object. The token is checked in
 * the isolate against the generation the object's record holds (`rotations.ts`).
 */
export function durableWatchService(
  namespace: DurableObjectNamespace<WatchObject>,
  secrets: WatchSecrets,
): WatchService {
  const of = (id: string) => namespace.get(namespace.idFromName(id));
  return {
    open: (request) => of(request.id).open(request),
    activate: (id) => of(id).activate(id),
    discard: (id) => of(id).discard(id),
    async authorized(id, token) {
      const watch = await of(id).watch(id);
      return watch && (await secrets.tokenMatches(id, token, tokenGenerationOf(watch))) ? watch : null;
    },
    watch: (id) => of(id).watch(id),
    history: (id, afterSeq) => of(id).history(id, afterSeq),
    cancel: (id) => of(id).cancel(id),
    rotate: (id, what) => of(id).rotate(id, what),
    extend: (id, days, key) => of(id).extend(id, days, key),
  };
}

/**
 * The Worker's watches as a `Platform` part. The objects schedule themselves (alarms): nothing to
 * start or stop. The counts come from the counter object the watch objects report to.
 */
export function durableWatchRuntime(
  namespace: DurableObjectNamespace<WatchObject>,
  counts: DurableObjectNamespace<WatchCountObject>,
  ledger?: WalletLedger,
): WatchRuntimeFactory {
  return ({ secrets }) => ({
    service: ledger
      ? recordingPayers(durableWatchService(namespace, secrets), ledger)
      : durableWatchService(namespace, secrets),
    ...(ledger ? { ledger } : {}),
    start() {},
    async stop() {},
    counts: () => watchCounter(counts).counts(),
  });
}
