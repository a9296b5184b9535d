/**
 * Side-by-side HTTP throughput: the service (as `npm start` runs it, local-chain mode, request log on)
 * against a bare Hono app answering the same bytes, with autocannon on loopback. Repetitions are
 * interleaved (service, bare, service, …) so that load from other processes hits both alike; server
 * CPU per request is read from /proc, and RSS idle and under 200 connections. Beside them, in the
 * same interleaving, the service with its request log and with its free-work limit switched off,
 * so that what each costs is printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { CapturedAnswer } from './bare-server.ts';
import { IDLE_CHECK_MS, IDLE_QUIET_CHECKS } from '../src/startup-memory.ts';

export interface HttpRow {
  route: string;
  service_rps: number[];
  bare_rps: number[];
  ratio: number;
  service_cpu_us: number;
  bare_cpu_us: number;
  /** Bare CPU per request ÷ the service's: the outside measure of the free path's cost. */
  cpu_ratio: number;
  service_p99_ms: number;
  /**
   * The service's CPU per request with one part switched off (the request log: `LOG_LEVEL=warn`;
   * the free-work limit: `RATE_LIMIT_BURST=0`, which also drops the rate-limit headers), and what
   * the part costs: the full service's CPU minus that.
   */
  parts: { part: string; without_cpu_us: number; costs_us: number }[];
}

export interface HttpReport {
  rows: HttpRow[];
  rss_mib: {
    service_idle: number;
    service_after_load: number;
    service_200: number;
    bare_idle: number;
    bare_200: number;
  };
  seconds: number;
  repetitions: number;
}

/** The measured answers: the free validate route, health, and the unpaid 402 of a paid route. */
export const ROUTES = ['/v1/validate?domain=example.com', '/health', '/v1/cert?domain=example.com'];
const TICKS_PER_SECOND = 100;

/**
 * What `npm start` runs (package.json): Node's flags and the entry, so that the bench measures what
 * runs.
 */
export function startCommand(): { flags: string[]; entry: string } {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.replace(/^exec node /, '').split(' ');
  return { flags: words.filter((word) => word.startsWith('--')), entry: words.at(-1) as string };
}

/**
 * The service's environment under load: request log on, and the free-work limit running (its cost
 * is measured) with a budget one loopback client cannot exhaust.
 */
export function serviceEnv(port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    RATE_LIMIT_BURST: '1000000',
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`${url}: server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become ready`);
}

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

function rssMib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

async function capture(base: string): Promise<CapturedAnswer[]> {
  return Promise.all(
    ROUTES.map(async (path) => {
      const res = await fetch(base + path);
      const headers: Record<string, string> = {};
      for (const [name, value] of res.headers) {
        if (!['date', 'connection', 'keep-alive', 'content-length'].includes(name)) headers[name] = value;
      }
      return { path, status: res.status, headers, body: await res.text() };
    }),
  );
}

export interface Load {
  rps: number;
  p99: number;
  cpuUs: number;
  peakRss: number;
}

export async function load(url: string, pid: number, connections: number, seconds: number): Promise<Load> {
  const before = cpuTicks(pid);
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMib(pid));
  }, 200);
  const result = await autocannon({ url, connections, duration: seconds });
  clearInterval(sampler);
  const cpuSeconds = (cpuTicks(pid) - before) / TICKS_PER_SECOND;
  const total = result.requests.total;
  if (result.errors > 0 || (result.non2xx > 0 && !url.includes('/v1/cert'))) {
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  }
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuUs: (cpuSeconds * 1e6) / total,
    peakRss,
  };
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** The median of `values` in ms, to a tenth. */
export const p50Ms = (values: number[]) => Math.round(median(values) * 10) / 10;

/** The service's parts switched off one at a time, by its own settings (metrics cannot be). */
const WITHOUT: Record<string, NodeJS.ProcessEnv> = {
  'request log': { LOG_LEVEL: 'warn' },
  'free-work limit': { RATE_LIMIT_BURST: '0' },
};

export async function benchHttp({ seconds = 10, repetitions = 3 } = {}): Promise<HttpReport> {
  const node = process.execPath;
  const servicePort = await freePort();
  const { flags, entry } = startCommand();
  const service = spawn(node, [...flags, entry], {
    env: serviceEnv(servicePort),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const serviceBase = `http://127.0.0.1:${servicePort}`;
  const variants = await Promise.all(
    Object.entries(WITHOUT).map(async ([part, env]) => {
      const port = await freePort();
      const child = spawn(node, [...flags, entry], {
        env: { ...serviceEnv(port), ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      return { name: `without ${part}`, part, base: `http://127.0.0.1:${port}`, child };
    }),
  );
  const answersFile = join(tmpdir(), `bench-answers-${process.pid}.json`);
  let bare: ChildProcess | undefined;
  try {
    await waitReady(`${serviceBase}/health`, service);
    await waitReady(`${serviceBase}${ROUTES[2]}`, service);
    writeFileSync(answersFile, JSON.stringify(await capture(serviceBase)));
    const barePort = await freePort();
    bare = spawn(node, ['bench/bare-server.ts', answersFile, String(barePort)], { stdio: 'inherit' });
    const bareBase = `http://127.0.0.1:${barePort}`;
    await waitReady(`${bareBase}/health`, bare);
    for (const variant of variants) await waitReady(`${variant.base}${ROUTES[2]}`, variant.child);

    const servers = [
      { name: 'service', base: serviceBase, pid: service.pid as number },
      { name: 'bare', base: bareBase, pid: bare.pid as number },
    ];
    const withParts = [
      ...servers,
      ...variants.map(({ name, base, child }) => ({ name, base, pid: child.pid as number })),
    ];
    // Warm all (JIT, caches), then read RSS 1 s after, and idle once the service has handed back
    // what the burst took (IDLE_QUIET_CHECKS looks at the heap without a request).
    const warm = async () => {
      for (const server of withParts)
        for (const path of ROUTES) await load(server.base + path, server.pid, 10, 1);
    };
    await warm();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterLoad = servers.map((server) => rssMib(server.pid));
    await new Promise((resolve) => setTimeout(resolve, IDLE_CHECK_MS * (IDLE_QUIET_CHECKS + 1)));
    const idle = servers.map((server) => rssMib(server.pid));
    // The release costs the first requests after it (about 1.8 times the CPU for the next 2 s,
    // bench/README.md): warmed again, so that what follows is the steady cost per request.
    await warm();

    const rows: HttpRow[] = [];
    for (const path of ROUTES) {
      const runs: Record<string, Load[]> = Object.fromEntries(withParts.map(({ name }) => [name, []]));
      for (let rep = 0; rep < repetitions; rep += 1) {
        for (const server of withParts)
          runs[server.name]?.push(await load(server.base + path, server.pid, 50, seconds));
      }
      const serviceRps = (runs.service ?? []).map((run) => Math.round(run.rps));
      const bareRps = (runs.bare ?? []).map((run) => Math.round(run.rps));
      const serviceCpu = median((runs.service ?? []).map((run) => run.cpuUs));
      const bareCpu = median((runs.bare ?? []).map((run) => run.cpuUs));
      rows.push({
        route: path.split('?')[0] as string,
        service_rps: serviceRps,
        bare_rps: bareRps,
        ratio: Math.round((median(serviceRps) / median(bareRps)) * 100) / 100,
        service_cpu_us: Math.round(serviceCpu * 10) / 10,
        bare_cpu_us: Math.round(bareCpu * 10) / 10,
        cpu_ratio: Math.round((bareCpu / serviceCpu) * 100) / 100,
        service_p99_ms: median((runs.service ?? []).map((run) => run.p99)),
        parts: variants.map(({ name, part }) => {
          const without = median((runs[name] ?? []).map((run) => run.cpuUs));
          return {
            part,
            without_cpu_us: Math.round(without * 10) / 10,
            costs_us: Math.round((serviceCpu - without) * 10) / 10,
          };
        }),
      });
    }
    const busy = [];
    for (const server of servers)
      busy.push((await load(`${server.base}/health`, server.pid, 200, Math.min(seconds, 5))).peakRss);
    return {
      rows,
      rss_mib: {
        service_idle: idle[0] ?? 0,
        service_after_load: afterLoad[0] ?? 0,
        bare_idle: idle[1] ?? 0,
        service_200: busy[0] ?? 0,
        bare_200: busy[1] ?? 0,
      },
      seconds,
      repetitions,
    };
  } finally {
    for (const { child } of variants) child.kill('SIGTERM');
    bare?.kill('SIGTERM');
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}
