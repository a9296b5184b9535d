/** RDAP bootstrap (RFC 9224) against the loopback IANA file: matching, https preference, caching, failures. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildTable,
  matchServer,
  RDAP_BOOTSTRAP_FAILURE_TTL_MS,
  RDAP_BOOTSTRAP_MAX_BYTES,
} from '../../../../src/sources/rdap/bootstrap.ts';
import { turnCounter } from '../../../support/event-loop-turns.ts';
import type { BootstrapService } from '../../../world/rdap-bootstrap.ts';
import { DAY_MS, HOUR_MS, type RdapWorld, startRdapWorld } from './world.ts';

let world: RdapWorld;
beforeEach(async () => {
  world = await startRdapWorld();
});
afterEach(() => world.close());

const bootstrapHits = () => world.bootstrap.requests.length;
const base = (path: string) => new URL(path, world.registry.url).href;

describe('findServer', () => {
  it('maps a domain to its zone base URL, path prefix included', async () => {
    const found = await world.client().findServer('healthy-shop.com');
    expect(found.ok && found.value.base?.href).toBe(base('/com/v1/'));
    expect(found.ok && found.value.call).toMatchObject({ name: 'rdap-bootstrap', ok: true, cached: false });
    expect(world.bootstrap.requests[0]?.url.pathname).toBe('/rdap/dns.json');
  });

  it('picks the longest label-wise match', async () => {
    const client = world.client();
    const deep = await client.findServer('www.bakery.co.uk');
    const shallow = await client.findServer('bakery.uk');
    expect(deep.ok && deep.value.base?.href).toBe(base('/co.uk/v1/'));
    expect(shallow.ok && shallow.value.base?.href).toBe(base('/uk/v1/'));
  });

  it('matches every label of a multi-TLD entry, case-insensitively', async () => {
    const found = await world.client().findServer('Tools.APP');
    expect(found.ok && found.value.base?.href).toBe(base('/dev/v1/'));
  });

  it('returns base null for a TLD absent from the file (.de, .io)', async () => {
    const client = world.client();
    for (const domain of ['bakery-berlin.de', 'startup.io']) {
      const found = await client.findServer(domain);
      expect(found).toMatchObject({ ok: true, value: { base: null } });
    }
  });

  it('prefers the https URL when an entry lists http and https', async () => {
    world.bootstrap.services.push([['kg'], ['http://rdap.cctld.kg/', 'https://rdap.cctld.kg/']]);
    const found = await world.client().findServer('shop.kg');
    expect(found.ok && found.value.base?.href).toBe('https://rdap.cctld.kg/');
  });

  it('keeps an http-only entry', async () => {
    world.bootstrap.services.push([['mg'], ['http://rdap.nic.mg/rdap/']]);
    const found = await world.client().findServer('vanille.mg');
    expect(found.ok && found.value.base?.href).toBe('http://rdap.nic.mg/rdap/');
  });
});

describe('buildTable and matchServer', () => {
  it('adds the missing trailing slash, drops non-http URLs and empty services', () => {
    const table = buildTable([
      [['fi'], ['https://rdap.fi/rdap/rdap']],
      [['zz'], ['ftp://rdap.zz/', 'not a url']],
    ]);
    expect(matchServer(table, 'kauppa.fi')?.href).toBe('https://rdap.fi/rdap/rdap/');
    expect(matchServer(table, 'x.zz')).toBeNull();
    expect(table.has('zz')).toBe(false);
  });
});

describe('a file at its size cap', () => {
  it('is read in slices that let the event loop run; later services still win', async () => {
    const count = 9_800;
    for (let index = 0; index < count; index += 1)
      world.bootstrap.services.push([[`t${index}`], [`https://rdap.t${index}.example/v1`]]);
    world.bootstrap.services.push([['com'], ['https://rdap.last-word.example/']]);
    expect(JSON.stringify({ services: world.bootstrap.services }, null, 2).length).toBeGreaterThan(
      RDAP_BOOTSTRAP_MAX_BYTES * 0.9,
    );
    const turns = turnCounter();
    const client = world.client(60_000);
    const last = await client.findServer('healthy-shop.com');
    turns.stop();
    expect(last.ok && last.value.base?.href).toBe('https://rdap.last-word.example/');
    const some = await client.findServer(`shop.t${count - 1}`);
    expect(some.ok && some.value.base?.href).toBe(`https://rdap.t${count - 1}.example/v1/`);
    // At least a turn per 500 services checked and added (the file is served indented, as IANA does).
    expect(turns.now()).toBeGreaterThanOrEqual(Math.floor(count / 500) - 1);
  });
});

describe('caching', () => {
  it('fetches the file once per 24 h on the injected clock', async () => {
    const client = world.client();
    await client.findServer('healthy-shop.com');
    world.clock.advance(24 * HOUR_MS - 1);
    const second = await client.findServer('renewal-due.net');
    expect(second.ok && second.value.call).toMatchObject({ cached: true, ms: 0 });
    expect(bootstrapHits()).toBe(1);
    world.clock.advance(1);
    const third = await client.findServer('healthy-shop.com');
    expect(third.ok && third.value.call.cached).toBe(false);
    expect(bootstrapHits()).toBe(2);
  });

  it('shares one in-flight fetch among concurrent callers', async () => {
    const client = world.client();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => client.findServer('healthy-shop.com')),
    );
    expect(answers.every((a) => a.ok && a.value.base !== null)).toBe(true);
    expect(answers.filter((a) => a.ok && !a.value.call.cached)).toHaveLength(1);
    expect(bootstrapHits()).toBe(1);
  });

  it('serves a stale file while IANA fails, retrying after 5 minutes, and gives up after 7 days', async () => {
    const client = world.client();
    await client.findServer('healthy-shop.com');
    world.clock.advance(25 * HOUR_MS);
    world.bootstrap.mode = 'server_error';
    const stale = await client.findServer('healthy-shop.com');
    expect(stale.ok && stale.value).toMatchObject({
      base: new URL(base('/com/v1/')),
      call: { ok: false, cached: true },
    });
    await client.findServer('healthy-shop.com');
    expect(bootstrapHits()).toBe(2);
    world.clock.advance(5 * 60_000);
    await client.findServer('healthy-shop.com');
    expect(bootstrapHits()).toBe(3);
    world.clock.advance(7 * DAY_MS);
    const gone = await client.findServer('healthy-shop.com');
    expect(gone).toMatchObject({
      ok: false,
      failure: { code: 'http_status', status: 503, source: 'rdap-bootstrap' },
    });
  });
});

describe('failures', () => {
  it('reports a 503 as http_status, remembers the failure for 10 s, then fetches again', async () => {
    world.bootstrap.mode = 'server_error';
    const client = world.client();
    expect(await client.findServer('healthy-shop.com')).toMatchObject({
      ok: false,
      failure: { code: 'http_status' },
    });
    world.bootstrap.mode = null;
    // Within the rest the failure is answered from memory, though IANA would answer now.
    world.clock.advance(RDAP_BOOTSTRAP_FAILURE_TTL_MS - 1);
    expect(await client.findServer('healthy-shop.com')).toMatchObject({
      ok: false,
      failure: { code: 'http_status', status: 503 },
    });
    expect(bootstrapHits()).toBe(1);
    world.clock.advance(1);
    const retried = await client.findServer('healthy-shop.com');
    expect(retried.ok && retried.value.call).toMatchObject({ ok: true, cached: false });
    expect(bootstrapHits()).toBe(2);
  });

  it('counts the rest from the failed answer: a fetch that hung for its budget rests the full 10 s', async () => {
    world.bootstrap.mode = 'hang';
    const client = world.client(200);
    const hung = client.findServer('healthy-shop.com');
    // The clock moves while the fetch hangs, as it would over a real timeout.
    world.clock.advance(5_000);
    expect(await hung).toMatchObject({ ok: false, failure: { code: 'timeout' } });
    world.bootstrap.mode = null;
    world.clock.advance(RDAP_BOOTSTRAP_FAILURE_TTL_MS - 1);
    expect(await client.findServer('healthy-shop.com')).toMatchObject({ ok: false });
    expect(bootstrapHits()).toBe(1);
  });

  it('reports a truncated file as malformed', async () => {
    world.bootstrap.mode = 'truncated';
    const found = await world.client().findServer('healthy-shop.com');
    expect(found).toMatchObject({ ok: false, failure: { code: 'malformed', source: 'rdap-bootstrap' } });
  });

  it('reports a file whose services are not RFC 9224 pairs of string lists as malformed', async () => {
    world.bootstrap.services.push([['bad'], [42]] as unknown as BootstrapService);
    const found = await world.client().findServer('healthy-shop.com');
    expect(found).toMatchObject({ ok: false, failure: { code: 'malformed', source: 'rdap-bootstrap' } });
  });

  it('reports a bad service past the first slices of a long file as malformed', async () => {
    for (let index = 0; index < 3_000; index += 1)
      world.bootstrap.services.push([[`t${index}`], [`https://rdap.t${index}.example/`]]);
    world.bootstrap.services.push([['bad'], [42]] as unknown as BootstrapService);
    const found = await world.client().findServer('healthy-shop.com');
    expect(found).toMatchObject({ ok: false, failure: { code: 'malformed', source: 'rdap-bootstrap' } });
  });

  it('times out on a hanging server within the budget', async () => {
    world.bootstrap.mode = 'hang';
    const started = performance.now();
    const found = await world.client(200).findServer('healthy-shop.com');
    const elapsed = performance.now() - started;
    expect(found).toMatchObject({ ok: false, failure: { code: 'timeout', source: 'rdap-bootstrap' } });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_000);
  });
});
