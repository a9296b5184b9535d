/**
 * The paid checks measured from outside: the service's `/v1/cert` and `/v1/site-health` (its HTTP
 * routes, real runners, payment left out: the window from the request to the last byte of the
 * answer) against the slowest upstream, crt.sh slowed to 300 ms, fetched by a bare client in the
 * same run, interleaved, with the ACME CAs answering ARI, over the world's domains whose slowest
 * path is that one crt.sh search. Every measured call gets fresh runners,
 * so nothing comes from a cache. The service runs twice, calls interleaved: in a process of its own
 * (bench/outside-service.ts: its CPU does not delay the fakes' timers and handshakes, nor theirs its
 * own, as on separate machines) and in the bench's process beside the fakes, as before. Then the
 * event loop under a 5 MiB crt.sh answer: a stream of `/health` calls beside a cert check whose
 * crt.sh search answers 4,000 rows of one serial; and the other upstreams at their caps (upstream-caps.ts).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { type Config, loadConfig } from '../src/config.ts';
import { CRTSH_MAX_BYTES, crtshSearchUrl } from '../src/sources/ct/crtsh.ts';
import { startWorld, type World } from '../test/world/index.ts';
import { startLoopbackServer } from '../test/world/loopback-server.ts';
import { median, p50Ms } from './http.ts';
import { outsideApp } from './outside-app.ts';
import { benchUpstreamCaps, type CapRow, loopWatch } from './upstream-caps.ts';

/** crt.sh's delay, as the outside measure slows it. */
export const CRTSH_DELAY_MS = 300;
/** The bound: the paid window at most this much over crt.sh fetched directly (p50). */
export const OUTSIDE_BOUND_MS = 5;
/** Most domains measured per route. */
const MAX_DOMAINS = 12;
export interface OutsideRow {
  route: string;
  /** Where the service ran: in a process of its own, or in the bench's, beside the world's fakes. */
  service: 'own process' | 'bench process';
  domains: number;
  calls: number;
  /** p50 of the check window, of crt.sh fetched directly, and of the window minus the direct fetch paired. */
  window_p50_ms: number;
  bare_crtsh_p50_ms: number;
  over_p50_ms: number;
  /** p50 of the product's own `sources[].ms` for crt.sh. */
  own_crtsh_p50_ms: number;
}

/** Runs of the large answer beside `/health` (the first includes compiling the slicing code). */
const EVENT_LOOP_RUNS = 3;

export interface EventLoopRun {
  check_ms: number;
  health_calls: number;
  health_p50_ms: number;
  health_max_ms: number;
  loop_delay_max_ms: number;
  /** The most main-thread CPU time between two turns of the event loop (what a hold cost, whatever the load). */
  loop_block_cpu_max_ms: number;
}

export interface EventLoopReport {
  /** What the answer holds: `one serial` (rows of one certificate) or `distinct issuances`. */
  kind: 'one serial' | 'distinct issuances';
  crtsh_bytes: number;
  crtsh_rows: number;
  runs: EventLoopRun[];
  /** The median over runs of each run's longest event-loop delay, and of its longest hold in CPU time. */
  loop_delay_max_p50_ms: number;
  loop_block_cpu_max_p50_ms: number;
}

export interface OutsideReport {
  rows: OutsideRow[];
  /** A 5 MiB crt.sh answer of one serial, then one of ~18,000 distinct issuances. */
  eventLoops: EventLoopReport[];
  /** The other upstreams at their size caps (upstream-caps.ts). */
  caps: CapRow[];
}

export interface Served {
  url: string;
  /** Builds a fresh app (fresh runners and caches) for the next call. */
  renew(): Promise<void>;
  close(): Promise<void>;
}

export async function serveService(config: Config, caPem: string): Promise<Served> {
  const build = outsideApp(config, caPem);
  let app = await build();
  const server = serve({ fetch: (request) => app.fetch(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    renew: async () => {
      app = await build();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The same service in a process of its own (bench/outside-service.ts), configured by `env`. */
async function serveServiceApart(env: Record<string, string>, caPem: string): Promise<Served> {
  const caFile = join(tmpdir(), `bench-outside-ca-${process.pid}.pem`);
  writeFileSync(caFile, caPem);
  const child = spawn(process.execPath, [join(import.meta.dirname, 'outside-service.ts'), caFile], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the outside service exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    renew: async () => {
      await (await fetch(`${url}/bench/renew`, { method: 'POST' })).arrayBuffer();
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

export async function timedGet(url: string | URL): Promise<{ ms: number; status: number; body: string }> {
  const started = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  return { ms: performance.now() - started, status: res.status, body };
}

interface CertAnswer {
  sources?: { name: string; ok: boolean; ms: number }[];
}

/**
 * The world's domains whose slowest upstream path is one crt.sh search: the cert check answers, the
 * site serves the current certificate (so no certificate is downloaded from crt.sh afterwards)
 * and the CA answers ARI about it, asked once: about the served leaf, before crt.sh answers. (Where
 * CT shows a newer certificate than the site serves, the CA is asked about that one too, once crt.sh
 * has answered: a second round trip after the search, which is the check's and not overhead.)
 * Asked with crt.sh not slowed.
 */
export async function plainDomains(world: World, service: Served): Promise<string[]> {
  const plain: string[] = [];
  const cas = Object.values(world.acme);
  for (const domain of world.scenarios.keys()) {
    const before = world.crtsh.requests.length;
    const ariBefore = cas.map((ca) => ca.requests.length);
    await service.renew();
    const answer = await timedGet(`${service.url}/v1/cert?domain=${domain}`);
    if (answer.status !== 200) continue;
    const downloaded = world.crtsh.requests
      .slice(before)
      .some((request) => request.url.searchParams.has('d'));
    const ariAsked = cas
      .flatMap((ca, at) => ca.requests.slice(ariBefore[at]))
      .filter((request) => request.url.pathname.includes('renewal-info')).length;
    const { sources = [] } = JSON.parse(answer.body) as CertAnswer;
    const answered = (name: string) => sources.some((source) => source.name === name && source.ok);
    if (!downloaded && answered('probe') && answered('ari') && ariAsked === 1) plain.push(domain);
    if (plain.length === MAX_DOMAINS) break;
  }
  return plain;
}

async function windows(
  world: World,
  services: Record<OutsideRow['service'], Served>,
  rounds: number,
): Promise<OutsideRow[]> {
  const rows: OutsideRow[] = [];
  const plain = await plainDomains(world, services['own process']);
  world.crtsh.delayMs = CRTSH_DELAY_MS;
  const places = Object.keys(services) as OutsideRow['service'][];
  for (const route of ['/v1/cert', '/v1/site-health']) {
    const series = places.map(() => ({
      window: [] as number[],
      bare: [] as number[],
      over: [] as number[],
      own: [] as number[],
    }));
    let domains = 0;
    for (const domain of plain) {
      // One unmeasured call per place (JIT); a domain whose site-health does not answer is left out.
      const answered = [];
      for (const place of places) {
        await services[place].renew();
        answered.push((await timedGet(`${services[place].url}${route}?domain=${domain}`)).status === 200);
      }
      if (!answered.every(Boolean)) continue;
      domains += 1;
      // Interleaved, so that the machine's load falls on both places alike.
      for (let round = 0; round < rounds; round += 1) {
        for (const [index, place] of places.entries()) {
          const into = series[index] as (typeof series)[number];
          const service = services[place];
          const direct = await timedGet(crtshSearchUrl(world.crtsh.url, domain));
          await service.renew();
          const answer = await timedGet(`${service.url}${route}?domain=${domain}`);
          if (answer.status !== 200) throw new Error(`${route} ${domain} answered ${answer.status}`);
          into.window.push(answer.ms);
          into.bare.push(direct.ms);
          into.over.push(answer.ms - direct.ms);
          const { sources = [] } = JSON.parse(answer.body) as CertAnswer;
          const crtsh = sources.find((source) => source.name === 'crt.sh');
          if (crtsh) into.own.push(crtsh.ms);
        }
      }
    }
    for (const [index, place] of places.entries()) {
      const { window, bare, over, own } = series[index] as (typeof series)[number];
      rows.push({
        route,
        service: place,
        domains,
        calls: window.length,
        window_p50_ms: p50Ms(window),
        bare_crtsh_p50_ms: p50Ms(bare),
        over_p50_ms: p50Ms(over),
        own_crtsh_p50_ms: p50Ms(own),
      });
    }
  }
  return rows;
}

/** crt.sh's answer at its cap: 4,000 rows of one serial, each with a distinct name, ~5 MiB. */
export function largeCrtshAnswer(domain: string, rows = 4_000): string {
  const pad = 'x'.repeat(950);
  return JSON.stringify(
    Array.from({ length: rows }, (_, index) => ({
      issuer_ca_id: 295_815,
      issuer_name: "C=US, O=Let's Encrypt, CN=R11",
      common_name: domain,
      name_value: `host-${index}.${domain}\n${domain}\nhostmaster-${pad}@${domain}`,
      id: 15_000_000_000 + index,
      entry_timestamp: '2026-10-01T08:00:00.123',
      not_before: '2026-10-01T07:00:00',
      not_after: '2026-12-30T07:00:00',
      serial_number: '0400ab12cd',
    })),
  );
}

/** crt.sh's answer for a domain with a long CT history: just under its 5 MiB cap, of distinct issuances (~18,000 rows). */
export function distinctIssuancesAnswer(
  domain: string,
  bytes = CRTSH_MAX_BYTES - 16 * 1024,
): { body: string; rows: number } {
  const rows: string[] = [];
  let size = 2;
  const day = 86_400_000;
  const first = Date.parse('2016-01-01T00:00:00Z');
  for (let index = 0; size < bytes; index += 1) {
    const notBefore = new Date(first + (index % 3_650) * day + index * 1_000);
    const row = JSON.stringify({
      issuer_ca_id: 295_815 + (index % 7),
      issuer_name: "C=US, O=Let's Encrypt, CN=R1" + (index % 7),
      common_name: `host-${index}.${domain}`,
      name_value: `host-${index}.${domain}`,
      id: 9_000_000_000 + index,
      entry_timestamp: notBefore.toISOString().slice(0, 23),
      not_before: notBefore.toISOString().slice(0, 19),
      not_after: new Date(notBefore.getTime() + 90 * day).toISOString().slice(0, 19),
      serial_number: (0x0400000000n + BigInt(index) * 7_919n).toString(16),
    });
    rows.push(row);
    size += row.length + 1;
  }
  return { body: `[${rows.join(',')}]`, rows: rows.length };
}

async function eventLoopUnderLargeAnswer(
  world: World,
  kind: EventLoopReport['kind'],
): Promise<EventLoopReport> {
  const domain = 'healthy-shop.com';
  const answer =
    kind === 'one serial' ? { body: largeCrtshAnswer(domain), rows: 4_000 } : distinctIssuancesAnswer(domain);
  const { body } = answer;
  const crtsh = await startLoopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  const config = loadConfig({ ...world.env, CRTSH_URL: crtsh.url.href, LOG_LEVEL: 'silent' });
  const service = await serveService(config, world.site.caPem);
  try {
    await timedGet(`${service.url}/health`);
    const runs: EventLoopRun[] = [];
    for (let run = 0; run < EVENT_LOOP_RUNS; run += 1) {
      await service.renew();
      const health: number[] = [];
      let checking = true;
      const stream = (async () => {
        while (checking) health.push((await timedGet(`${service.url}/health`)).ms);
      })();
      const watch = loopWatch();
      const check = await timedGet(`${service.url}/v1/cert?domain=${domain}`);
      checking = false;
      await stream;
      const loop = watch.stop();
      if (check.status !== 200)
        throw new Error(`/v1/cert with a 5 MiB crt.sh answer (${kind}) answered ${check.status}`);
      runs.push({
        check_ms: Math.round(check.ms),
        health_calls: health.length,
        health_p50_ms: p50Ms(health),
        health_max_ms: Math.round(Math.max(...health) * 10) / 10,
        loop_delay_max_ms: loop.blockMs,
        loop_block_cpu_max_ms: loop.blockCpuMs,
      });
    }
    return {
      kind,
      crtsh_bytes: body.length,
      crtsh_rows: answer.rows,
      runs,
      loop_delay_max_p50_ms: median(runs.map((run) => run.loop_delay_max_ms)),
      loop_block_cpu_max_p50_ms: median(runs.map((run) => run.loop_block_cpu_max_ms)),
    };
  } finally {
    await service.close();
    await crtsh.close();
  }
}

export async function benchOutside({ rounds = 4 } = {}): Promise<OutsideReport> {
  const world = await startWorld();
  try {
    const services = {
      'own process': await serveServiceApart(world.env, world.site.caPem),
      'bench process': await serveService(
        loadConfig({ ...world.env, LOG_LEVEL: 'silent' }),
        world.site.caPem,
      ),
    };
    let rows: OutsideRow[];
    try {
      rows = await windows(world, services, rounds);
    } finally {
      await Promise.all(Object.values(services).map((service) => service.close()));
    }
    world.crtsh.delayMs = 0;
    const eventLoops = [
      await eventLoopUnderLargeAnswer(world, 'one serial'),
      await eventLoopUnderLargeAnswer(world, 'distinct issuances'),
    ];
    return { rows, eventLoops, caps: await benchUpstreamCaps() };
  } finally {
    await world.close();
  }
}
