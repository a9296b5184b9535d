/**
 * One site-health check of a domain per round on Workers: a Durable Object per domain, named by the
 * stored (normalized) domain, that every watch object of the domain asks for the round's outcome.
 * It checks once — asks that arrive meanwhile share the check in flight — and hands the same
 * outcome to every ask within the round's window (a failure only briefly: `keptFor`). The outcome
 * is kept in the object's storage with its time, so an object evicted between two watches' alarms
 * still has it, and read back with suspicion; the object's alarm deletes it once it is stale.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import { confirmingCheck } from '../watches/confirm.ts';
import type { WatchCheck, WatchCheckOutcome } from '../watches/ports.ts';
import { keptFor, sharedOutcome } from '../watches/round-check.ts';
import { siteHealthCheck } from '../watches/runtime.ts';
import { edgeConfig, type EdgeVariables } from './edge-config.ts';
import { edgeRunners } from './edge-runners.ts';

type CheckedOutcome = WatchCheckOutcome;

/** The storage key of the round's outcome: `{ until, outcome }`. */
const ROUND = 'round';

export class DomainCheckObject extends DurableObject<EdgeVariables> {
  #check: WatchCheck | undefined;
  #inFlight: Promise<CheckedOutcome> | undefined;

  /** The round's outcome for `domain` (this object's name), checked now unless one is kept. */
  async outcome(domain: string, windowMs: number): Promise<CheckedOutcome> {
    const kept = await this.#kept();
    if (kept) return kept;
    this.#inFlight ??= this.#checked(domain, windowMs).finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async #kept(): Promise<CheckedOutcome | null> {
    const round = await this.ctx.storage.get<{ until?: unknown; outcome?: unknown }>(ROUND);
    if (typeof round?.until !== 'number' || round.until <= Date.now()) return null;
    return sharedOutcome(round.outcome);
  }

  async #checked(domain: string, windowMs: number): Promise<CheckedOutcome> {
    if (!this.#check) {
      const config = edgeConfig(this.env);
      this.#check = confirmingCheck(siteHealthCheck(edgeRunners(config)), config.watches.confirmS * 1000);
    }
    const outcome = await this.#check(domain);
    if (outcome.type !== 'invalid_input') {
      const until = Date.now() + keptFor(outcome.type === 'result', windowMs);
      await this.ctx.storage.put(ROUND, { until, outcome });
      await this.ctx.storage.setAlarm(until);
    }
    return outcome;
  }

  /** A stale outcome is deleted: an object of a domain no longer watched keeps nothing. */
  async alarm(): Promise<void> {
    if (!(await this.#kept())) await this.ctx.storage.delete(ROUND);
  }
}

/** The scheduled check of a watch object: the round's outcome from the domain's object. */
export function durableRoundCheck(
  namespace: DurableObjectNamespace<DomainCheckObject>,
  windowMs: number,
): WatchCheck {
  // Awaited here: an RPC call answers a thenable that is no `Promise`.
  return async (domain) => await namespace.get(namespace.idFromName(domain)).outcome(domain, windowMs);
}
