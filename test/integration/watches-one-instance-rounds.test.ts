/**
 * One check of a domain per round on ONE Node instance (the SQLite store, no shared board): twenty
 * watches of one domain bought at times spread over a whole interval, through the watch service with
 * the real first check, are all first due at the domain's one slot of the interval (each a tenth of
 * an interval to 1.1 intervals after its purchase), and a watch bought between two rounds joins the
 * next. The real scheduler — claiming 7 at a time, so that a claim's limit cuts the domain's
 * watches — checks the domain once per round against the test world: one check's site probes and
 * crt.sh searches per round whatever the number of watches, every watch still committing its own
 * state and its own event from that one result. The clock is the test's: no timing depends on the
 * machine's speed.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRunners } from '../../src/runners.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import type { WatchCheck } from '../../src/watches/ports.ts';
import { siteHealthCheck } from '../../src/watches/runtime.ts';
import { createWatchScheduler } from '../../src/watches/scheduler.ts';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import { slotAtOrAfter } from '../../src/watches/slots.ts';
import { openSqliteWatchStore } from '../../src/sqlite/watch-store.ts';
import { createStoreWatchService } from '../../src/watches/store-service.ts';
import { startWorld, type World } from '../world/index.ts';

const DOMAIN = 'healthy-shop.com';
const WATCHES = 20;
const INTERVAL_S = 600;
const INTERVAL_MS = INTERVAL_S * 1000;
const DAY_S = 86_400;
const silent = pino({ level: 'silent' });

let world: World;

beforeAll(async () => {
  world = await startWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

/** Site probes and crt.sh searches (not certificate downloads) about the domain so far. */
const upstreamCalls = () => ({
  probes: world.site.requests.filter((request) => request.headers.host?.startsWith(DOMAIN)).length,
  searches: world.crtsh.requests.filter(
    (request) => !request.url.searchParams.has('d') && request.url.search.toLowerCase().includes(DOMAIN),
  ).length,
});

describe('a round on one instance', () => {
  it('checks a domain once per round for twenty watches bought over an interval, and one bought later', async () => {
    const config = loadConfig({ ...world.env, LOG_LEVEL: 'silent', WATCH_INTERVAL_S: String(INTERVAL_S) });
    // Fresh runners for each check (nothing cached), so every check reaches the world.
    const runSiteHealth: WatchCheck = (domain) =>
      siteHealthCheck(
        createRunners(config, {
          fetch: globalThis.fetch,
          now: () => new Date(),
          reach: nodeReach(world.site.caPem),
        }),
      )(domain);
    let checks = 0;
    const check: WatchCheck = (domain) => {
      checks += 1;
      return runSiteHealth(domain);
    };
    const store = openSqliteWatchStore(':memory:');
    const secrets = createWatchSecrets('one-instance-rounds-key-0123456789abcdef');
    // The clock: purchases a twentieth of an interval apart, the last a tenth of an interval before `slot`.
    const slot = slotAtOrAfter(DOMAIN, INTERVAL_S, Date.now() + 2 * INTERVAL_MS);
    const boughtAt = (i: number) => slot - 1.1 * INTERVAL_MS + ((i + 1) * INTERVAL_MS) / WATCHES;
    let clock = boughtAt(0);
    const service = createStoreWatchService({
      store,
      check,
      secrets,
      intervalS: INTERVAL_S,
      dayS: DAY_S,
      wake: () => {},
      logger: silent,
      now: () => clock,
    });
    const ids: string[] = [];
    async function buy(at: number) {
      clock = at;
      const id = `wat_slots${String(ids.length).padStart(2, '0')}`;
      expect(await service.open({ id, domain: DOMAIN, days: 30, webhookUrl: null })).toMatchObject({
        kind: 'opened',
        created: true,
      });
      expect(await service.activate(id)).toMatchObject({ status: 'active' });
      ids.push(id);
    }
    for (let i = 0; i < WATCHES; i += 1) await buy(boughtAt(i));
    // Each purchase ran its buyer's own first check.
    expect(checks).toBe(WATCHES);
    for (const [i, id] of ids.entries()) {
      const at = (await store.get(id))?.nextCheckAt;
      expect(at).toBe(slot);
      expect(at! - boughtAt(i)).toBeGreaterThanOrEqual(INTERVAL_MS / 10);
      expect(at! - boughtAt(i)).toBeLessThan(INTERVAL_MS * 1.1);
    }

    const scheduler = createWatchScheduler({
      store,
      check,
      send: () => Promise.reject(new Error('pull-only watches send nothing')),
      secrets,
      dayS: DAY_S,
      logger: silent,
      now: () => clock,
      batch: 7,
    });
    /** Runs claims at `at` until nothing is due; how many checks, site probes and crt.sh searches that cost. */
    async function round(at: number) {
      clock = at;
      const before = { checks, ...upstreamCalls() };
      let claims = 0;
      for (;;) {
        const due = await store.nextDueAt();
        if (due === null || due > clock) break;
        await scheduler.runOnce();
        claims += 1;
      }
      const after = upstreamCalls();
      return {
        claims,
        checks: checks - before.checks,
        probes: after.probes - before.probes,
        searches: after.searches - before.searches,
      };
    }
    /** The site probes and crt.sh searches of one check of the domain, run outside the scheduler. */
    const oneCheckCalls = async () => {
      const before = upstreamCalls();
      expect((await runSiteHealth(DOMAIN)).type).toBe('result');
      const after = upstreamCalls();
      return { probes: after.probes - before.probes, searches: after.searches - before.searches };
    };

    // Nothing is due before the slot: the purchases do not make rounds of their own.
    expect(await round(slot - 1)).toMatchObject({ claims: 0, checks: 0 });
    const healthy = await oneCheckCalls();
    expect(healthy.probes).toBeGreaterThan(0);
    expect(healthy.searches).toBeGreaterThan(0);
    // All twenty in one round (claims of 7, 7 and 6): one check's calls.
    expect(await round(slot)).toEqual({ claims: 3, checks: 1, ...healthy });
    for (const id of ids) expect(await store.get(id)).toMatchObject({ nextCheckAt: slot + INTERVAL_MS });
    // A watch bought between two rounds joins the next.
    await buy(slot + INTERVAL_MS / 2);
    expect(await store.get(ids.at(-1)!)).toMatchObject({ nextCheckAt: slot + INTERVAL_MS });

    // The site fails its probe: the next round (all twenty-one, in claims of 7) raises it.
    world.site.mode = 'server-error';
    try {
      const failing = await oneCheckCalls();
      expect(await round(slot + INTERVAL_MS - 1)).toMatchObject({ claims: 0, checks: 0 });
      expect(await round(slot + INTERVAL_MS)).toEqual({ claims: 3, checks: 1, ...failing });
    } finally {
      world.site.mode = null;
    }

    const checkedAt = new Set<string>();
    for (const id of ids) {
      const watch = await store.get(id);
      expect(watch).toMatchObject({ conditions: ['probe.failed'], nextCheckAt: slot + 2 * INTERVAL_MS });
      checkedAt.add(String(watch?.lastResult?.checked_at));
      const events = await store.events(id, 0, 10);
      expect(events.map((event) => [event.type, event.data.raised])).toEqual([
        ['watch.created', undefined],
        ['watch.alert', ['probe.failed']],
      ]);
    }
    // One check's result, committed by every watch.
    expect(checkedAt.size).toBe(1);

    // A later round does not take an earlier round's outcome: it checks, once.
    expect(await round(slot + 2 * INTERVAL_MS)).toEqual({ claims: 3, checks: 1, ...healthy });
    await scheduler.stop();
    await store.close();
  }, 60_000);
});
