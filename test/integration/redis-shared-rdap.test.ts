/**
 * RDAP answers and the RDAP bootstrap file shared between instances through a real redis-server,
 * as CT answers are: two instances' RDAP clients (each with its own connection and empty caches)
 * ask the registry and IANA once between them; entries keep their lifetimes as TTLs; an entry
 * that does not read back as an answer (cut short, another version's, tampered) is a miss, and the
 * upstream is asked again.
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
import { redisSharedAnswers } from '../../src/redis/shared-answers.ts';
import { RDAP_BOOTSTRAP_TTL_MS, RDAP_CACHE_TTL_MS, type RdapAnswer } from '../../src/sources/rdap/index.ts';
import type { SourceResult } from '../../src/sources/failure.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { HOUR_MS, type RdapWorld, startRdapWorld } from './sources/rdap/world.ts';

const DOMAIN = 'healthy-shop.com';
const REGISTRY_PATH = `/com/v1/domain/${DOMAIN}`;

let server: RedisServer;
let stores: SharedStore[];
let world: RdapWorld;
const unreadable: string[] = [];
const logger = { warn: (fields: { key: string }) => void unreadable.push(fields.key) };

beforeAll(async () => {
  [server, world] = await Promise.all([startRedisServer(), startRdapWorld()]);
  stores = [0, 1].map(() => connectSharedStore(server.url, pino({ level: 'silent' })));
  await Promise.all(stores.map((store) => store.refusal()));
}, 60_000);
afterAll(async () => {
  await Promise.all((stores ?? []).map((store) => store.close()));
  await Promise.all([server?.close(), world?.close()]);
});
afterEach(async () => {
  unreadable.length = 0;
  await server.client.flushall();
});

/** One instance's RDAP client: its own connection to the shared Redis, empty caches. */
const instance = (n: 0 | 1) => world.client(2_000, {}, redisSharedAnswers(stores[n] as SharedStore, logger));
/**
 * Resolves once what instance 0 offered the others is in Redis (its writes are not awaited by the
 * lookup): the server answers one connection's commands in order.
 */
const offered = () => (stores[0] as SharedStore).redis.ping();
const bootstrapHits = () => world.bootstrap.requests.length;
const rdapKey = () => `${KEY_PREFIX}answer:rdap:${new URL('/com/v1/', world.registry.url).href} ${DOMAIN}`;
const bootstrapKey = () => `${KEY_PREFIX}answer:rdap-bootstrap:${world.bootstrap.fileUrl.href}`;

function registered(result: SourceResult<RdapAnswer>) {
  if (!result.ok || result.value.kind !== 'registered')
    throw new Error(`not registered: ${JSON.stringify(result)}`);
  return result.value;
}

describe('RDAP answers and the bootstrap file across instances', () => {
  it('are asked of the registry and IANA once for two instances, dates and URLs read back whole', async () => {
    const [registryBefore, bootstrapBefore] = [world.registryHits(REGISTRY_PATH), bootstrapHits()];
    const first = registered(await instance(0).lookup(DOMAIN));
    await offered();
    const second = registered(await instance(1).lookup(DOMAIN));
    expect(world.registryHits(REGISTRY_PATH) - registryBefore).toBe(1);
    expect(bootstrapHits() - bootstrapBefore).toBe(1);

    expect(second.registration).toEqual(first.registration);
    expect(second.registration.expiresAt).toBeInstanceOf(Date);
    expect(second.server).toBeInstanceOf(URL);
    expect(second.server.href).toBe(first.server.href);
    // Reported as cached, as CT answers from another instance are: the bootstrap and the registry call.
    expect(second.sources.map((call) => call.cached)).toEqual(second.sources.map(() => true));
    expect(second.sources.every((call) => call.ms === 0)).toBe(true);
  });

  it('keep their lifetimes in Redis: an hour for an answer, the rest of its day for the file', async () => {
    await instance(0).lookup(DOMAIN);
    await offered();
    const answerTtl = await server.client.pttl(rdapKey());
    expect(answerTtl).toBeGreaterThan(RDAP_CACHE_TTL_MS - 60_000);
    expect(answerTtl).toBeLessThanOrEqual(RDAP_CACHE_TTL_MS);
    const fileTtl = await server.client.pttl(bootstrapKey());
    expect(fileTtl).toBeGreaterThan(RDAP_BOOTSTRAP_TTL_MS - 60_000);
    expect(fileTtl).toBeLessThanOrEqual(RDAP_BOOTSTRAP_TTL_MS);
  });

  it('a file another instance fetched ends with its day: the next instance fetches it again', async () => {
    await instance(0).lookup(DOMAIN);
    await offered();
    const before = bootstrapHits();
    world.clock.advance(24 * HOUR_MS);
    try {
      registered(await instance(1).lookup(DOMAIN));
      expect(bootstrapHits() - before).toBe(1);
    } finally {
      world.clock.advance(-24 * HOUR_MS);
    }
  });

  const TAMPERED: [string, (entry: Record<string, unknown>) => unknown][] = [
    ['not JSON', () => '{"value":'],
    ['no expiry', (entry) => ({ value: entry.value })],
    [
      'a server that is not http(s)',
      (entry) => ({ ...entry, value: { ...(entry.value as object), server: 'javascript:alert(1)' } }),
    ],
    [
      'an expiry date that is not one',
      (entry) => {
        const value = entry.value as { registration: Record<string, unknown> };
        return { ...entry, value: { ...value, registration: { ...value.registration, expiresAt: 'soon' } } };
      },
    ],
    ['another kind', (entry) => ({ ...entry, value: { ...(entry.value as object), kind: 'unsupported' } })],
    [
      'a huge Unicode string',
      () => JSON.stringify({ value: 'ü'.repeat(100_000), expiresAt: Date.now() + HOUR_MS }),
    ],
  ];

  it.each(TAMPERED)(
    'an answer entry with %s is a miss: the registry is asked again, the answer whole',
    async (_, edit) => {
      await instance(0).lookup(DOMAIN);
      await offered();
      const entry = JSON.parse((await server.client.get(rdapKey())) as string) as Record<string, unknown>;
      const edited = edit(entry);
      await server.client.set(
        rdapKey(),
        typeof edited === 'string' ? edited : JSON.stringify(edited),
        'PX',
        HOUR_MS,
      );
      const before = world.registryHits(REGISTRY_PATH);
      const answer = registered(await instance(1).lookup(DOMAIN));
      expect(world.registryHits(REGISTRY_PATH) - before).toBe(1);
      expect(answer.registration.expiresAt).toBeInstanceOf(Date);
      expect(unreadable).toEqual([`answer:rdap:${new URL('/com/v1/', world.registry.url).href} ${DOMAIN}`]);
    },
  );

  it('a bootstrap entry that is not a services list is a miss; one pointing elsewhere than http(s) serves nothing', async () => {
    await instance(0).lookup(DOMAIN);
    await offered();
    const expiresAt = world.clock.now.getTime() + HOUR_MS;
    await server.client.set(
      bootstrapKey(),
      JSON.stringify({ value: { services: 'none' }, expiresAt }),
      'PX',
      HOUR_MS,
    );
    const before = bootstrapHits();
    registered(await instance(1).lookup(DOMAIN));
    expect(bootstrapHits() - before).toBe(1);

    await server.client.set(
      bootstrapKey(),
      JSON.stringify({ value: [[['com'], ['file:///etc/passwd', 'ftp://127.0.0.1/']]], expiresAt }),
      'PX',
      HOUR_MS,
    );
    const elsewhere = await instance(1).lookup(DOMAIN);
    expect(elsewhere).toMatchObject({ ok: true, value: { kind: 'unsupported' } });
  });
});
