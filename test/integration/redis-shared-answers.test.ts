/**
 * CT answers read back from a real redis-server with suspicion: an entry that does not parse (a
 * partial write, an older version's entry, a tampered key) is a miss, logged once, and the check
 * still answers; a good answer then overwrites it. RDAP answers and the bootstrap file are shared by
 * the runners of two instances as CT answers are (`redis-shared-rdap.test.ts` reads them back).
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRunners } from '../../src/runners.ts';
import { loadConfig } from '../../src/config.ts';
import { normalizeDomain, type ValidDomain } from '../../src/domain/normalize.ts';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
import { redisSharedAnswers } from '../../src/redis/shared-answers.ts';
import { createCtCache } from '../../src/sources/ct/lookup.ts';
import type { CtLookupOutcome } from '../../src/sources/ct/outcome.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { startWorld, type World } from '../world/index.ts';
import { issuance } from '../unit/checks/cert/fixtures.ts';
import { waitFor } from '../support/wait-for.ts';

let server: RedisServer;
let store: SharedStore;
let world: World;
const warnings: { key: string; msg: string }[] = [];
const logger = {
  warn: (fields: { key: string }, msg: string) => void warnings.push({ key: fields.key, msg }),
};

beforeAll(async () => {
  [server, world] = await Promise.all([startRedisServer(), startWorld()]);
  store = connectSharedStore(server.url, pino({ level: 'silent' }));
  await waitFor(() => store.reachable(), { what: 'the connection to redis-server', everyMs: 0 });
}, 60_000);
afterAll(async () => {
  await store?.close();
  await Promise.all([server?.close(), world?.close()]);
});
afterEach(() => {
  warnings.length = 0;
  world.reset();
});

const NOW = Date.parse('2026-11-20T00:00:00Z');
let keys = 0;

const outcome = (domain: string): CtLookupOutcome => ({
  result: { ok: true, value: { source: 'crt.sh', issuances: [issuance({ daysAgo: 10, names: [domain] })] } },
  calls: [{ name: 'crt.sh', url: 'https://crt.sh/', ok: true, ms: 840, cached: false }],
});

/** The JSON another instance would have written for `outcome`, with `edit` applied to the parsed entry. */
function entryText(domain: string, edit: (entry: { value: unknown; expiresAt: unknown }) => unknown): string {
  const entry = JSON.parse(JSON.stringify({ value: outcome(domain), expiresAt: NOW + 600_000 }));
  return JSON.stringify(edit(entry));
}

/** A good entry for `domain` padded past the longest an instance writes. */
const longerThanWritten = (domain: string) =>
  entryText(domain, (e) => ({ ...e, padding: 'x'.repeat(2_600_000) }));

/** Bytes redis-server has sent to its clients so far. */
async function bytesSent(): Promise<number> {
  const stats = await server.client.info('stats');
  return Number(/total_net_output_bytes:(\d+)/.exec(stats)?.[1]);
}

describe('a shared CT entry that does not parse is a miss, never a 500', () => {
  it.each([
    ['not JSON', () => '{"value":{"result":'],
    ['JSON null', () => 'null'],
    ['a null value', (d: string) => entryText(d, (e) => ({ ...e, value: null }))],
    [
      'ok without a value',
      (d: string) => entryText(d, (e) => ({ ...e, value: { result: { ok: true }, calls: [] } })),
    ],
    [
      'dates that are not dates',
      (d: string) =>
        entryText(d, (e) => {
          const value = e.value as ReturnType<typeof outcome>;
          if (value.result.ok)
            (value.result.value.issuances[0] as unknown as Record<string, unknown>).notBefore = 'soon';
          return e;
        }),
    ],
    ['an expiry that is no number', (d: string) => entryText(d, (e) => ({ ...e, expiresAt: 'later' }))],
    ['longer than any answer written (2.6 MB)', (d: string) => longerThanWritten(d)],
    [
      'a failed lookup (never written by this version)',
      (d: string) =>
        entryText(d, (e) => ({ ...e, value: { result: { ok: false, failure: {} }, calls: [] } })),
    ],
  ])(
    '%s: the upstream is asked, the miss logged once, and the good answer overwrites it',
    async (_, text) => {
      const domain = `tampered-${++keys}.example`;
      const stored = `${KEY_PREFIX}answer:ct:${domain}`;
      await server.client.set(stored, text(domain), 'PX', 600_000);
      const answers = redisSharedAnswers(store, logger);
      let upstream = 0;
      const load = async () => ({ ok: true as const, value: (upstream++, outcome(domain)) });
      /** Resolves once the good answer has been written over the bad text. */
      const overwritten = async () => {
        await waitFor(async () => (await server.client.get(stored)) !== text(domain), {
          what: 'the good answer written over the bad text',
          everyMs: 0,
        });
      };
      expect(await createCtCache(() => NOW, answers).get(domain, load)).toEqual({
        result: { ok: true, value: outcome(domain) },
        cached: false,
      });
      await overwritten();
      // The same bad text again (an older instance writing it): a miss again, not logged again.
      await server.client.set(stored, text(domain), 'PX', 600_000);
      expect((await createCtCache(() => NOW, answers).get(domain, load)).cached).toBe(false);
      expect(upstream).toBe(2);
      expect(warnings).toEqual([
        { key: `answer:ct:${domain}`, msg: expect.stringMatching(/taken as a miss/) },
      ]);
      // The good answer written over it is reused by another instance.
      await overwritten();
      const third = await createCtCache(() => NOW, answers).get(domain, load);
      expect(third).toMatchObject({ cached: true, result: { ok: true } });
      expect(upstream).toBe(2);
    },
  );

  it('an entry longer than any written never leaves Redis: read as a miss in a few bytes', async () => {
    const domain = `long-${++keys}.example`;
    await server.client.set(`${KEY_PREFIX}answer:ct:${domain}`, longerThanWritten(domain), 'PX', 600_000);
    const before = await bytesSent();
    const answers = redisSharedAnswers(store, logger);
    expect(await answers.get(`ct:${domain}`)).toBeNull();
    // The INFO answers themselves are a few kB; the entry is 2.6 MB.
    expect((await bytesSent()) - before).toBeLessThan(64_000);
    expect(warnings).toEqual([{ key: `answer:ct:${domain}`, msg: expect.stringMatching(/taken as a miss/) }]);
  });

  it('the cert check answers from the upstream when the shared entry is tampered with', async () => {
    const domain = 'healthy-shop.com';
    await server.client.set(
      `${KEY_PREFIX}answer:ct:${domain}`,
      '{"value":null,"expiresAt":9e15}',
      'PX',
      600_000,
    );
    const runners = createRunners(loadConfig(world.env), {
      fetch: globalThis.fetch,
      now: () => new Date(),
      reach: nodeReach(world.site.caPem),
      sharedAnswers: redisSharedAnswers(store, logger),
    });
    const checked = normalizeDomain(domain);
    if (!checked.valid) throw new Error('valid');
    const result = await runners.cert(checked as ValidDomain);
    expect(result.type).toBe('result');
    expect(warnings).toHaveLength(1);
  });
});

describe('RDAP answers and the bootstrap file across instances', () => {
  it("two instances' expiry checks of one domain ask the registry and IANA once between them", async () => {
    const domain = normalizeDomain('healthy-shop.com');
    if (!domain.valid) throw new Error('valid');
    const instance = (shared: SharedStore) =>
      createRunners(loadConfig(world.env), {
        fetch: globalThis.fetch,
        now: () => new Date(),
        reach: nodeReach(world.site.caPem),
        sharedAnswers: redisSharedAnswers(shared, logger),
      });
    // The other instance's own connection, so nothing it reads waits behind the first one's writes.
    const other = connectSharedStore(server.url, pino({ level: 'silent' }));
    try {
      await other.refusal();
      const registry = () =>
        world.rdapRegistry.requests.filter((r) => r.url.pathname.endsWith('/domain/healthy-shop.com')).length;
      const [registryBefore, bootstrapBefore] = [registry(), world.rdapBootstrap.requests.length];
      expect((await instance(store).expiry(domain as ValidDomain)).type).toBe('result');
      // What the first instance offered is in Redis once its connection has answered a later command.
      await store.redis.ping();
      expect((await instance(other).expiry(domain as ValidDomain)).type).toBe('result');
      expect(registry() - registryBefore).toBe(1);
      expect(world.rdapBootstrap.requests.length - bootstrapBefore).toBe(1);
    } finally {
      await other.close();
    }
  });
});
