import { describe, expect, it } from 'vitest';
import {
  IDLE_MAX_UTILIZATION,
  IDLE_QUIET_CHECKS,
  IDLE_RELEASE_GROWTH_BYTES,
  idleRelease,
  releaseStartupMemory,
} from '../../src/startup-memory.ts';

const MIB = 1024 * 1024;

/** A process seen by idleRelease: its request counters and heap size are set by the test. */
function world() {
  const state = { started: 0, active: 0, utilization: 0.001, heap: 40 * MIB, releases: 0 };
  const check = idleRelease({
    requests: () => ({ started: state.started, active: state.active }),
    utilization: () => state.utilization,
    heapBytes: () => state.heap,
    release: () => {
      state.releases += 1;
      state.heap = 40 * MIB;
    },
  });
  /** `count` checks in a row. */
  const checks = (count: number) => {
    for (let one = 0; one < count; one += 1) check();
  };
  return { state, check, checks };
}

describe('idleRelease', () => {
  it('releases a burst’s growth once IDLE_QUIET_CHECKS periods in a row passed with no request', () => {
    const { state, check, checks } = world();
    state.started += 500;
    state.heap += 12 * MIB;
    check(); // requests started during this period: not yet
    checks(IDLE_QUIET_CHECKS - 1);
    expect(state.releases).toBe(0);
    check();
    expect(state.releases).toBe(1);
    checks(IDLE_QUIET_CHECKS * 2);
    expect(state.releases).toBe(1);
  });

  it('keeps a burst’s growth through a lull shorter than that: the next burst would grow it again', () => {
    const { state, check, checks } = world();
    for (let burst = 0; burst < 5; burst += 1) {
      state.started += 500;
      state.heap += 12 * MIB;
      check();
      checks(IDLE_QUIET_CHECKS - 1);
    }
    expect(state.releases).toBe(0);
  });

  it('never releases while a request is in flight, even one started before the last check', () => {
    const { state, checks } = world();
    state.started += 1;
    state.active = 1;
    state.heap += 20 * MIB;
    checks(IDLE_QUIET_CHECKS * 2);
    expect(state.releases).toBe(0);
    state.active = 0;
    checks(IDLE_QUIET_CHECKS);
    expect(state.releases).toBe(1);
  });

  it('waits while background work keeps the event loop busy, with no request', () => {
    const { state, checks } = world();
    state.heap += 30 * MIB;
    state.utilization = IDLE_MAX_UTILIZATION;
    checks(IDLE_QUIET_CHECKS * 2);
    expect(state.releases).toBe(0);
    state.utilization = IDLE_MAX_UTILIZATION / 2;
    checks(IDLE_QUIET_CHECKS);
    expect(state.releases).toBe(1);
  });

  it('does not collect for growth under its threshold, measured from the last release', () => {
    const { state, check, checks } = world();
    state.heap += IDLE_RELEASE_GROWTH_BYTES - 1;
    checks(IDLE_QUIET_CHECKS * 2);
    expect(state.releases).toBe(0);
    state.heap += 1;
    check();
    expect(state.releases).toBe(1);
  });

  it('keeps releasing under steady traffic only when it pauses', () => {
    const { state, check } = world();
    for (let period = 0; period < 10; period += 1) {
      state.started += 100;
      state.heap += 8 * MIB;
      check();
    }
    expect(state.releases).toBe(0);
  });
});

describe('releaseStartupMemory', () => {
  it('collects garbage without leaving gc visible to the application', async () => {
    const weak = new WeakRef({ payload: new Array(1000).fill('x') });
    // A WeakRef's target is kept until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    releaseStartupMemory();
    expect(weak.deref()).toBeUndefined();
    expect('gc' in globalThis).toBe(false);
  });
});
