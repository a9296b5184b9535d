/**
 * A domain whose watches a claim's limit cuts in two is still checked once: the next claim takes
 * the outcome the last one had, under a shared round's rules — a result for half the interval, a
 * failed check for 10 s only (so `watch.check_failed` counts real attempts), never one from an
 * earlier round.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import type { RunOutcome } from '../../../src/checks/outcome.ts';
import { outputExampleFor } from '../../../src/payments/output-examples.ts';
import type { WatchStore } from '../../../src/watches/ports.ts';
import { FAILURE_KEEP_MS } from '../../../src/watches/round-check.ts';
import { createWatchScheduler } from '../../../src/watches/scheduler.ts';
import { createWatchSecrets } from '../../../src/watches/secrets.ts';
import { openSqliteWatchStore } from '../../../src/watches/sqlite-store.ts';
import { STORE_NOW, watchRecord } from '../../world/watch-records.ts';

const INTERVAL_S = 600;
const result = outputExampleFor('v1_site_health') as SiteHealthResult;
const failed: RunOutcome<SiteHealthResult> = {
  type: 'upstream_failed',
  upstreams: [{ name: 'crt.sh', error: 'timeout' }],
};

/** `count` active watches of each domain, due at `STORE_NOW`. */
async function dueWatches(store: WatchStore, domains: string[], count: number) {
  for (const domain of domains)
    for (let i = 0; i < count; i += 1) {
      const pending = watchRecord(`wat_${domain}_${i}`, { domain, webhookUrl: null, intervalS: INTERVAL_S });
      await store.insert(pending);
      const active = {
        ...pending,
        status: 'active' as const,
        nextCheckAt: STORE_NOW,
        dueAt: STORE_NOW,
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
    expect(await store.nextDueAt()).toBeGreaterThan(STORE_NOW + INTERVAL_S * 500);
    for (const id of ['wat_a.example_4', 'wat_b.example_4'])
      expect(await store.get(id)).toMatchObject({ version: 2, lastCheckedAt: expect.any(Number) });
  });

  it('take a result no longer than half an interval', async () => {
    const { store, checked, claim } = harness(() => ({ type: 'result', result }));
    await dueWatches(store, ['a.example'], 6);
    await claim(STORE_NOW);
    await claim(STORE_NOW + INTERVAL_S * 500);
    expect(checked).toEqual(['a.example', 'a.example']);
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
