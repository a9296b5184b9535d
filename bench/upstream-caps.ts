/**
 * The longest the event loop is held while one upstream answer at its size cap is read, per source
 * (crt.sh is measured beside `/health` in outside.ts): Cert Spotter's pages (2 MiB each, as many as
 * are followed), an RDAP domain answer (256 KiB), the RDAP bootstrap file (1 MiB), a DoH answer
 * (256 KiB) and an ARI answer (64 KiB), each served by a loopback fake and read by the source's
 * own client, watched by `loopWatch` (the longest delay of a 1 ms timer, and the most CPU spent
 * between two of its firings). The answers are shaped to make the most work of their bytes: many
 * short names, records or services. Cert Spotter's are nine full pages, the most a listing that is
 * not refused as too long can have. Beside them, a CT answer shared through Redis that does not read
 * back (2.6 MB of issuances cut short, as a partial write, an older version or tampering leaves it),
 * read by the CT cache of an instance with `REDIS_URL`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import dnsPacket from 'dns-packet';
import { pino } from 'pino';
import { connectSharedStore } from '../src/redis/connection.ts';
import { redisSharedAnswers } from '../src/redis/shared-answers.ts';
import { createAriClient } from '../src/sources/ari/renewal-info.ts';
import { createCtCache } from '../src/sources/ct/lookup.ts';
import {
  CERTSPOTTER_MAX_BYTES,
  CERTSPOTTER_MAX_PAGES,
  fetchCertspotterIssuances,
} from '../src/sources/ct/certspotter.ts';
import { createDohClient, DOH_MAX_BYTES } from '../src/sources/doh/client.ts';
import { ARI_MAX_BYTES } from '../src/sources/ari/renewal-info.ts';
import { createRdapBootstrap, RDAP_BOOTSTRAP_MAX_BYTES } from '../src/sources/rdap/bootstrap.ts';
import { lookupDomain, RDAP_MAX_BYTES } from '../src/sources/rdap/lookup.ts';
import { globalFetch } from '../src/service.ts';
import { startLoopbackServer } from '../test/world/loopback-server.ts';
import { startRedisServer } from '../test/world/redis-server.ts';
import { median } from './http.ts';

/** The bound: no single answer holds the event loop longer than this. */
export const BLOCK_BOUND_MS = 50;
const RUNS = 3;

export interface CapRow {
  source: string;
  /** Bytes of the largest answer served (each page, for Cert Spotter). */
  bytes: number;
  /** Answers read in one call (Cert Spotter's pages). */
  answers: number;
  /** What the client made of it, to show the answer was read, not refused. */
  read: string;
  /** The longest event-loop delay per run, and their median. */
  block_ms: number[];
  block_p50_ms: number;
  /** The most main-thread CPU time between two turns of the event loop, per run, and their median. */
  block_cpu_ms: number[];
  block_cpu_p50_ms: number;
}

const DOMAIN = 'caps.example';
/** The size of the shared CT entry that does not read back. */
const SHARED_CT_ENTRY_BYTES = 2_600_000;

/** Fills `make(i)` items until the JSON array's text would pass `bytes`. */
function fill<T>(bytes: number, make: (index: number) => T): T[] {
  const items: T[] = [];
  let size = 2;
  for (let index = 0; ; index += 1) {
    const item = make(index);
    size += JSON.stringify(item).length + 1;
    if (size > bytes) return items;
    items.push(item);
  }
}

/** A Cert Spotter page: 100 issuances, their names filling the page to just under the cap. */
function certspotterPage(page: number): Buffer {
  const perIssuance = Math.floor((CERTSPOTTER_MAX_BYTES - 4_096) / 100);
  const issuances = Array.from({ length: 100 }, (_, index) => {
    const id = String(page * 100 + index + 1);
    const names = fill(perIssuance - 600, (name) => `h${name}-${id}.${DOMAIN}`);
    return {
      id,
      tbs_sha256: 'a'.repeat(64),
      cert_sha256: 'b'.repeat(64),
      dns_names: [DOMAIN, ...names],
      pubkey_sha256: 'c'.repeat(64),
      issuer: { pubkey_sha256: 'd'.repeat(64), name: "C=US, O=Let's Encrypt, CN=R11" },
      not_before: '2026-10-01T07:00:00Z',
      not_after: '2026-12-30T07:00:00Z',
    };
  });
  return Buffer.from(JSON.stringify(issuances));
}

function rdapDomain(): Buffer {
  const events = fill(RDAP_MAX_BYTES / 2, (index) => ({
    eventAction: index === 0 ? 'expiration' : 'last changed',
    eventDate: '2027-01-01T00:00:00Z',
  }));
  const nameservers = fill(RDAP_MAX_BYTES / 2 - 200, (index) => ({ ldhName: `ns${index}.${DOMAIN}` }));
  return Buffer.from(JSON.stringify({ objectClassName: 'domain', ldhName: DOMAIN, events, nameservers }));
}

function rdapBootstrap(base: string): Buffer {
  const services = fill(RDAP_BOOTSTRAP_MAX_BYTES - 200, (index) => [[`t${index}`], [`${base}/r${index}/`]]);
  services.push([['example'], [`${base}/`]]);
  return Buffer.from(JSON.stringify({ version: '1.0', services }));
}

/** A DoH answer of TXT records filling the cap, the question `name TXT` (RFC 8484 messages use id 0). */
function dohAnswer(name: string): Buffer {
  const answers: dnsPacket.Answer[] = [];
  const record = (index: number): dnsPacket.Answer => ({
    type: 'TXT',
    name,
    ttl: 300,
    data: [`v=caps${index}`],
  });
  const encode = () =>
    dnsPacket.encode({
      type: 'response',
      id: 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [{ type: 'TXT', name }],
      answers,
    });
  const empty = encode().length;
  answers.push(record(100_000));
  const size = encode().length - empty;
  answers.length = 0;
  while (empty + (answers.length + 1) * size <= DOH_MAX_BYTES) answers.push(record(100_000 + answers.length));
  return encode();
}

/** A shared CT entry of many issuances, cut one character short of its end: it does not parse. */
function unreadableCtEntry(): string {
  const issuances = fill(SHARED_CT_ENTRY_BYTES - 100, (index) => ({
    serial: index.toString(16).padStart(32, '0'),
    names: [`h${index}.${DOMAIN}`],
    issuer: "C=US, O=Let's Encrypt, CN=R11",
    notBefore: '2026-10-01T07:00:00.000Z',
    notAfter: '2026-12-30T07:00:00.000Z',
  }));
  const whole = JSON.stringify({ value: { result: { ok: true, value: { issuances } } }, expiresAt: 4e12 });
  return whole.slice(0, -1);
}

function ariAnswer(): Buffer {
  const explanationURL = `https://ca.example/${'x'.repeat(ARI_MAX_BYTES - 300)}`;
  return Buffer.from(
    JSON.stringify({
      suggestedWindow: { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' },
      explanationURL,
    }),
  );
}

/**
 * Watches the event loop while `read` runs: the longest delay of a 1 ms timer (wall time, which on a
 * loaded machine also counts the time the process waited for a core), and the most CPU time the
 * main thread spent between two firings of a 1 ms timer (what the hold itself cost, whatever the load).
 */
export function loopWatch(): { stop(): { blockMs: number; blockCpuMs: number } } {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let last = cpuMs();
  let most = 0;
  const timer = setInterval(() => {
    const now = cpuMs();
    most = Math.max(most, now - last);
    last = now;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      delay.disable();
      return { blockMs: Math.round(delay.max / 1e5) / 10, blockCpuMs: Math.round(most * 10) / 10 };
    },
  };
}

/**
 * What a client made of its answer, to show it was read: a string, or a function making it, called
 * once the watch has stopped (Cert Spotter's names are counted from its packed issuances, work
 * that is the bench's, not the read's).
 */
type ReadSummary = string | (() => string);

function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync' }) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync' });
}

async function measured(
  read: () => Promise<ReadSummary>,
): Promise<{ read: string; blockMs: number; blockCpuMs: number }> {
  // Each run starts from a collected heap: the bench's process holds the earlier sections' garbage
  // (5 MiB crt.sh answers, fresh apps), ~200 MiB of heap whose full collection would otherwise be
  // charged to whichever read happened to trigger it. A plain full collection: a memory-reducing one
  // shrinks the heap, and the read then pays for growing it again.
  fullCollection();
  const watch = loopWatch();
  const outcome = await read();
  // A hold at the very end is recorded only when the timer it delayed fires.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const loop = watch.stop();
  return { read: typeof outcome === 'function' ? outcome() : outcome, ...loop };
}

export async function benchUpstreamCaps(): Promise<CapRow[]> {
  const pages = Array.from({ length: CERTSPOTTER_MAX_PAGES - 1 }, (_, page) => certspotterPage(page));
  const rdap = rdapDomain();
  const ari = ariAnswer();
  const doh = dohAnswer(DOMAIN);
  const server = await startLoopbackServer((_req, res, url) => {
    const send = (type: string, body: Buffer) => {
      res.writeHead(200, { 'content-type': type, 'content-length': body.length });
      res.end(body);
    };
    if (url.pathname === '/v1/issuances') {
      const after = url.searchParams.get('after');
      const page = after === null ? 0 : Number(after) / 100;
      send('application/json', pages[page] ?? Buffer.from('[]'));
    } else if (url.pathname === '/dns.json') send('application/json', bootstrap);
    else if (url.pathname.startsWith('/domain/')) send('application/rdap+json', rdap);
    else if (url.pathname === '/directory')
      send('application/json', Buffer.from(JSON.stringify({ renewalInfo: `${base}/ari` })));
    else if (url.pathname.startsWith('/ari/')) send('application/json', ari);
    else if (url.pathname === '/dns-query') send('application/dns-message', doh);
    else res.writeHead(404).end();
  });
  const base = server.url.href.replace(/\/$/, '');
  const bootstrap = rdapBootstrap(base);
  const redis = await startRedisServer();
  const store = connectSharedStore(redis.url, pino({ level: 'silent' }));
  const sharedEntry = unreadableCtEntry();
  const cases: Record<string, { bytes: number; answers: number; read: () => Promise<ReadSummary> }> = {
    certspotter: {
      bytes: Math.max(...pages.map((page) => page.length)),
      answers: pages.length,
      read: async () => {
        const result = await fetchCertspotterIssuances(DOMAIN, {
          fetch: globalFetch,
          baseUrl: server.url,
          timeoutMs: 60_000,
        });
        if (!result.ok) return result.failure.code;
        const issuances = result.value;
        return () =>
          `${issuances.length} issuances, ${issuances.reduce((sum, issuance) => sum + issuance.names.length, 0)} names`;
      },
    },
    rdap: {
      bytes: rdap.length,
      answers: 1,
      read: async () => {
        const deadline = AbortSignal.timeout(60_000);
        const result = await lookupDomain(server.url, DOMAIN, {
          fetch: globalFetch,
          budgetMs: 60_000,
          deadline,
        });
        return result.ok ? `found: ${'registration' in result.value}` : result.failure.code;
      },
    },
    'rdap-bootstrap': {
      bytes: bootstrap.length,
      answers: 1,
      read: async () => {
        const bootstrapper = createRdapBootstrap({
          fetch: globalFetch,
          url: new URL('/dns.json', server.url),
          timeoutMs: 60_000,
          now: () => new Date(),
        });
        const result = await bootstrapper.findServer(DOMAIN);
        return result.ok ? `base ${result.value.base?.pathname}` : result.failure.code;
      },
    },
    doh: {
      bytes: doh.length,
      answers: 1,
      read: async () => {
        const url = new URL('/dns-query', server.url);
        const client = createDohClient({ fetch: globalFetch, primaryUrl: url, fallbackUrl: url });
        const result = await client.query(DOMAIN, 'TXT');
        return result.ok ? `${result.value.records.length} records` : result.failure.code;
      },
    },
    ari: {
      bytes: ari.length,
      answers: 1,
      read: async () => {
        const client = createAriClient({
          fetch: globalFetch,
          directories: [{ ca: 'letsencrypt', directoryUrl: new URL('/directory', server.url) }],
          now: () => new Date('2026-11-01T00:00:00Z'),
        });
        const answer = await client.ask("Let's Encrypt", 'aaaa.bbbb', 60_000);
        return answer.status;
      },
    },
    'ct-shared-entry': {
      bytes: sharedEntry.length,
      answers: 1,
      read: async () => {
        await store.redis.set(`answer:ct:${DOMAIN}`, sharedEntry);
        const cache = createCtCache(undefined, redisSharedAnswers(store));
        let asked = false;
        await cache.get(DOMAIN, async () => {
          asked = true;
          return {
            ok: true,
            value: { result: { ok: true, value: { issuances: [], source: 'crt.sh' } }, calls: [] },
          };
        });
        return asked ? 'a miss: the upstream asked' : 'taken from the entry';
      },
    },
  };
  try {
    const rows: CapRow[] = [];
    for (const [source, { bytes, answers, read }] of Object.entries(cases)) {
      const runs: Awaited<ReturnType<typeof measured>>[] = [];
      for (let run = 0; run < RUNS; run += 1) runs.push(await measured(read));
      const block = runs.map((run) => run.blockMs);
      const blockCpu = runs.map((run) => run.blockCpuMs);
      rows.push({
        source,
        bytes,
        answers,
        read: runs[0]?.read ?? '',
        block_ms: block,
        block_p50_ms: median(block),
        block_cpu_ms: blockCpu,
        block_cpu_p50_ms: median(blockCpu),
      });
    }
    return rows;
  } finally {
    await store.close();
    await redis.close();
    await server.close();
  }
}
