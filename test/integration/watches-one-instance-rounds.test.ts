/**
 * One check of a domain per round on ONE Node instance (the SQLite store, no shared board): twenty
 * watches of one domain bought 5 s apart, through the watch service with the real first check, are
 * first due at three of the domain's slots (a tenth of an interval apart), each one interval to a
 * tenth more after its purchase. The real scheduler — claiming 7 at a time, so that a claim's limit
 * cuts the domain's watches — checks the domain once at the first slot, the later slots take that
 * result, and from then on all twenty share one slot: one check per round against the test world,
 * every watch still committing its own state and its own event from that one result.
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
import { openSqliteWatchStore } from '../../src/watches/sqlite-store.ts';
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

const siteProbes = () =>
  world.site.requests.filter((request) => request.headers.host?.startsWith(DOMAIN)).length;

describe('a round on one instance', () => {
  it('checks a domain once per round for twenty watches bought at different times', async () => {
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
    // The clock: purchases 5 s apart from 30 s before `slot - INTERVAL`, so the first seven are first
    // due at `slot`, the next twelve one slot (60 s) later, the last two slots later.
    const SPACING_MS = INTERVAL_MS / 10;
    const slot = slotAtOrAfter(DOMAIN, INTERVAL_S, Date.now() + 2 * INTERVAL_MS);
    const boughtAt = (i: number) => slot - INTERVAL_MS - 30_000 + i * 5_000;
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
    for (let i = 0; i < WATCHES; i += 1) {
      clock = boughtAt(i);
      const id = `wat_slots${String(i).padStart(2, '0')}`;
      expect(await service.open({ id, domain: DOMAIN, days: 30, webhookUrl: null })).toMatchObject({
        kind: 'opened',
        created: true,
      });
      expect(await service.activate(id)).toMatchObject({ status: 'active' });
      ids.push(id);
    }
    // Each purchase ran its buyer's own first check.
    expect(checks).toBe(WATCHES);
    const firstSlots = await Promise.all(ids.map(async (id) => (await store.get(id))?.nextCheckAt));
    expect(firstSlots).toEqual(
      ids.map((_, i) => (i < 7 ? slot : i < 19 ? slot + SPACING_MS : slot + 2 * SPACING_MS)),
    );
    for (const [i, at] of firstSlots.entries()) {
      expect(at! - boughtAt(i)).toBeGreaterThanOrEqual(INTERVAL_MS);
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
    /** Runs claims at `at` until nothing is due; how many checks and site probes that cost. */
    async function round(at: number) {
      clock = at;
      const [checksBefore, probesBefore] = [checks, siteProbes()];
      let claims = 0;
      for (;;) {
        const due = await store.nextDueAt();
        if (due === null || due > clock) break;
        await scheduler.runOnce();
        claims += 1;
      }
      return { claims, checks: checks - checksBefore, probes: siteProbes() - probesBefore };
    }
    const oneCheckProbes = async () => {
      const before = siteProbes();
      expect((await runSiteHealth(DOMAIN)).type).toBe('result');
      return siteProbes() - before;
    };

    // Nothing is due before the slot: the purchases do not make rounds of their own.
    expect(await round(slot - 1)).toMatchObject({ claims: 0, checks: 0 });
    const healthy = await oneCheckProbes();
    expect(healthy).toBeGreaterThan(0);
    expect(await round(slot)).toEqual({ claims: 1, checks: 1, probes: healthy });
    // The next two slots take that result: no check, no probe; every watch moves onto one slot.
    expect(await round(slot + SPACING_MS)).toEqual({ claims: 2, checks: 0, probes: 0 });
    expect(await round(slot + 2 * SPACING_MS)).toEqual({ claims: 1, checks: 0, probes: 0 });
    for (const id of ids) expect(await store.get(id)).toMatchObject({ nextCheckAt: slot + INTERVAL_MS });

    // The site fails its probe: the next round (all twenty, in claims of 7, 7 and 6) raises it.
    world.site.mode = 'server-error';
    try {
      const failing = await oneCheckProbes();
      expect(await round(slot + INTERVAL_MS - 1)).toMatchObject({ claims: 0, checks: 0 });
      expect(await round(slot + INTERVAL_MS)).toEqual({ claims: 3, checks: 1, probes: failing });
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

    // A later round does not take an earlier round's outcome: it checks.
    expect(await round(slot + 2 * INTERVAL_MS)).toMatchObject({ claims: 3, checks: 1 });
    await scheduler.stop();
    await store.close();
  }, 60_000);
});
