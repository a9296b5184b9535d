/**
 * Whether this instance can take a payment now, and if not why: `/readyz` answers 503 and the
 * metrics show the causes whenever a paid call would be answered 503, so a load balancer stops
 * sending payers to an instance that cannot take their money. A clock off the chain's is shown, not
 * a cause: authorizations are judged on the chain's time.
 */
import type { Lifecycle } from '../../lifecycle.ts';
import { CHAIN_TIME_READ_MS, type ChainClock } from '../chain/chain-clock.ts';
import type { FacilitatorReady } from './facilitator-readiness.ts';

/**
 * What the store all instances share can do for a paid call now: `reachable`, or why a paid call
 * answers 503: `unreachable` (no connection, or an eviction policy that could drop payment state),
 * `refusing_writes` (full under `noeviction`), `stalled` (a write unanswered for over a second).
 */
export type StoreCondition = 'reachable' | 'unreachable' | 'refusing_writes' | 'stalled';

/** Why an instance is not ready; a fixed set (metric labels). */
export const NOT_READY_CAUSES = [
  'stopping',
  'facilitator_unavailable',
  'shared_store_unreachable',
  'shared_store_refusing_writes',
  'shared_store_stalled',
  'settlement_rpc_unreachable',
] as const;
export type NotReadyCause = (typeof NOT_READY_CAUSES)[number];

export interface ReadinessReport {
  ready: boolean;
  causes: NotReadyCause[];
  /** Present when a store is shared with other instances. */
  sharedStore?: StoreCondition;
  /** Present when this process reads the chain. */
  settlementRpc?: 'reachable' | 'unreachable';
  /** Our clock minus the chain's, in seconds, once measured. */
  clockSkewSeconds?: number;
}

export type Readiness = () => Promise<ReadinessReport>;

/** `/readyz` reads the chain again when its last read is older than this. */
const CHAIN_READ_MAX_AGE_MS = 1_000;

export interface ReadinessDeps {
  facilitatorReady: FacilitatorReady;
  lifecycle: Lifecycle;
  sharedStore?: () => StoreCondition;
  clock?: ChainClock;
  /** How long the facilitator's readiness may take before it counts as unavailable. */
  timeoutMs: number;
}

export function createReadiness(deps: ReadinessDeps): Readiness {
  const { facilitatorReady, lifecycle, sharedStore, clock, timeoutMs } = deps;
  return async () => {
    const [facilitator, chainAnswered] = await Promise.all([
      within(facilitatorReady(), timeoutMs),
      // Bounded here too: a read shared with a request that went away (a Worker's) may never settle.
      clock && within(clock.refresh(CHAIN_READ_MAX_AGE_MS), CHAIN_TIME_READ_MS),
    ]);
    const store = sharedStore?.();
    const skew = clock?.skewMs();
    const causes: NotReadyCause[] = [];
    if (lifecycle.stopping) causes.push('stopping');
    if (!facilitator) causes.push('facilitator_unavailable');
    if (store && store !== 'reachable') causes.push(`shared_store_${store}`);
    if (chainAnswered === false) causes.push('settlement_rpc_unreachable');
    return {
      ready: causes.length === 0,
      causes,
      ...(store ? { sharedStore: store } : {}),
      ...(clock ? { settlementRpc: chainAnswered ? 'reachable' : 'unreachable' } : {}),
      ...(skew !== undefined ? { clockSkewSeconds: Math.round(skew / 100) / 10 } : {}),
    };
  };
}

/** `ready`, counted false when it does not answer within `ms`. */
function within(ready: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([ready, late]).finally(() => clearTimeout(timer));
}
