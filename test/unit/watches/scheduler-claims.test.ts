/**
 * A domain is checked once per round on one instance: a later claim (the rest of a domain a claim's
 * limit cut, or watches of the domain claimed late) takes the domain's recent outcome under a shared
 * round's rules — a result for the round window (a quarter of the interval), a failed check for
 * 10 s only (so `watch.check_failed` counts real attempts), never one from an earlier round — and
 * its watches all move on to the domain's next slot.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import type { RunOutcome } from '../../../src/checks/outcome.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import type { WatchStore } from '../../../src/watches/ports.ts';
import { FAILURE_KEEP_MS, roundWindowMs } from '../../../src/watches/round-check.ts';
import { createWatchScheduler } from '../../../src/watches/scheduler.ts';
import { createWatchSecrets } from '../../../src/watches/secrets.ts';
import { nextCheckAfter } from '../../../src/watches/slots.ts';
import { openSqliteWatchStore } from '../../../src/sqlite/watch-store.ts';
import { STORE_NOW, watchRecord } from '../../world/watch-records.ts';

const INTERVAL_S = 600;
const result = outputExampleFor('v1_site_health') as SiteHealthResult;
const failed: RunOutcome<SiteHealthResult> = {
  type: 'upstream_failed',
  upstreams: [{ name: 'crt.sh', error: 'timeout' }],
};

/** `count` active watches of each domain, due at `dueAt` (ids after `tag`). */
async function dueWatches(store: WatchStore, domains: string[], count: number, dueAt = STORE_NOW, tag = '') {
  for (const domain of domains)
    for (let i = 0; i < count; i += 1) {
      const pending = watchRecord(`wat_${domain}_${tag}${i}`, {
        domain,
        webhookUrl: null,
        intervalS: INTERVAL_S,
      });
      await store.insert(pending);
      const active = {
        ...pending,
        status: 'active' as const,
        nextCheckAt: dueAt,
        dueAt,
        version: 1,
      };
      await store.commit({ watch: active, expectedVersion: 0, events: [], deliveries: [] });
    }
}

function harness(outcome: () => RunOutcome<SiteHealthResult>) {
  const store = openSqliteWatchStore(':memory:');
  const checked: string[] = [];
  let clock = STORE_NOW;
  const scheduler = createWatchScheduler({
    store,
    check: async (domain) => {
      checked.push(domain);
      return outcome();
    },
    send: () => Promise.reject(new Error('pull-only')),
    secrets: createWatchSecrets('scheduler-claims-key-0123456789abcdef01'),
    dayS: 86_400,
    logger: pino({ level: 'silent' }),
    now: () => clock,
    batch: 4,
  });
  return {
    store,
    checked,
    /** One claim at `at`. */
    claim: (at: number) => {
      clock = at;
      return scheduler.runOnce();
    },
  };
}

describe('claims that cut a domain', () => {
  it('check each domain once, the rest of a cut domain taking the last claim’s result', async () => {
    const { store, checked, claim } = harness(() => ({ type: 'result', result }));
    await dueWatches(store, ['a.example', 'b.example'], 5);
    await claim(STORE_NOW);
    await claim(STORE_NOW + 1_000);
    await claim(STORE_NOW + 2_000);
    expect(checked.sort()).toEqual(['a.example', 'b.example']);
    for (const domain of ['a.example', 'b.example'])
      for (let i = 0; i < 5; i += 1)
        expect(await store.get(`wat_${domain}_${i}`)).toMatchObject({
          version: 2,
          lastCheckedAt: expect.any(Number),
          nextCheckAt: nextCheckAfter(domain, INTERVAL_S, STORE_NOW),
        });
  });

  it('take a result no longer than the round window', async () => {
    const { store, checked, claim } = harness(() => ({ type: 'result', result }));
    await dueWatches(store, ['a.example'], 6);
    await claim(STORE_NOW);
    await claim(STORE_NOW + roundWindowMs(INTERVAL_S));
    expect(checked).toEqual(['a.example', 'a.example']);
  });

  it('give watches claimed late in the window the domain’s result, past other claims, and its next slot', async () => {
    const { store, checked, claim } = harness(() => ({ type: 'result', result }));
    const lateInWindow = STORE_NOW + roundWindowMs(INTERVAL_S) - 10;
    await dueWatches(store, ['a.example'], 2);
    await dueWatches(store, ['b.example'], 2, STORE_NOW + 1_000);
    await dueWatches(store, ['a.example'], 3, lateInWindow, 'later');
    await claim(STORE_NOW);
    await claim(STORE_NOW + 1_000);
    await claim(lateInWindow + 3);
    expect(checked.sort()).toEqual(['a.example', 'b.example']);
    const first = (await store.get('wat_a.example_0'))?.nextCheckAt;
    expect(first).toBe(nextCheckAfter('a.example', INTERVAL_S, STORE_NOW));
    for (const id of ['wat_a.example_1', 'wat_a.example_later0', 'wat_a.example_later2'])
      expect((await store.get(id))?.nextCheckAt).toBe(first);
  });

  it('take a failed check for 10 s only', async () => {
    const { store, checked, claim } = harness(() => failed);
    await dueWatches(store, ['a.example'], 12);
    await claim(STORE_NOW);
    await claim(STORE_NOW + FAILURE_KEEP_MS - 1);
    expect(checked).toHaveLength(1);
    await claim(STORE_NOW + FAILURE_KEEP_MS);
    expect(checked).toHaveLength(2);
    for (const id of ['wat_a.example_0', 'wat_a.example_11'])
      expect(await store.get(id)).toMatchObject({ failures: 1 });
  });
});
