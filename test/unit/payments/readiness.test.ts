/**
 * Readiness judges within a bound whatever it waits on: a chain read that never settles (shared
 * with a Worker request that went away) counts as the settlement RPC not answering.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLifecycle } from '../../../src/lifecycle.ts';
import { CHAIN_TIME_READ_MS, type ChainClock } from '../../../src/payments/chain/chain-clock.ts';
import { createReadiness } from '../../../src/payments/server/readiness.ts';

function clockAnswering(refresh: () => Promise<boolean>): ChainClock {
  return { now: () => Date.now(), skewMs: () => 0, refresh };
}

describe('createReadiness', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is ready when the facilitator is and the chain answers', async () => {
    const readiness = createReadiness({
      facilitatorReady: async () => true,
      lifecycle: createLifecycle(),
      clock: clockAnswering(async () => true),
      timeoutMs: 3_000,
    });
    expect(await readiness()).toEqual({
      ready: true,
      causes: [],
      settlementRpc: 'reachable',
      clockSkewSeconds: 0,
    });
  });

  it('answers by the read deadline when the chain read never settles: the RPC counts as unreachable', async () => {
    const readiness = createReadiness({
      facilitatorReady: async () => true,
      lifecycle: createLifecycle(),
      clock: clockAnswering(() => new Promise<boolean>(() => {})),
      timeoutMs: 3_000,
    });
    let report: Awaited<ReturnType<typeof readiness>> | undefined;
    void readiness().then((answered) => (report = answered));
    await vi.advanceTimersByTimeAsync(CHAIN_TIME_READ_MS - 1);
    expect(report).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(report).toMatchObject({
      ready: false,
      causes: ['settlement_rpc_unreachable'],
      settlementRpc: 'unreachable',
    });
  });
});
