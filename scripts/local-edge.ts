/**
 * The Worker in local workerd, as `npm run edge:dev` and the edge tests run it: bundled by wrangler
 * exactly as `wrangler deploy` would bundle it, then served by Miniflare with the bindings of
 * `wrangler.jsonc` and the service's variables.
 *
 * The edge's network is emulated here: every outbound request of the Worker leaves through this
 * process, which resolves host names through the configured DoH resolver (as Cloudflare's edge
 * resolves through its own) and trusts Node's CA store plus `NODE_EXTRA_CA_CERTS`. Cloudflare's
 * refusal of private destinations is not emulated: the Worker's own checks are what tests exercise.
 */
import { randomBytes } from 'node:crypto';
import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isIP, type LookupFunction } from 'node:net';
import { getCACertificates } from 'node:tls';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptions } from 'miniflare';
import { Agent, fetch as undiciFetch } from 'undici';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { loadConfig } from '../src/config.ts';
import { resolveAddresses } from '../src/sources/doh/addresses.ts';
import { createDohClient } from '../src/sources/doh/client.ts';
import type { SourceResult } from '../src/sources/failure.ts';
import { runCollected } from './run-collected.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const WRANGLER_CONFIG = join(ROOT, 'wrangler.jsonc');
const WORKER_NAME = 'website-checks';

export interface WorkerBundle {
  /** The bundled module, as `wrangler deploy` would upload it. */
  path: string;
  /** Upload size and its gzip size, in KiB, as wrangler reports them. */
  uploadKiB: number;
  gzipKiB: number;
}

/**
 * Bundles the Worker with wrangler (`deploy --dry-run`), offline, into `outDir` (default: a new
 * temporary folder, so that builds running side by side never share one). `entry` replaces
 * `wrangler.jsonc`'s `main` (tests bundle a test-only entry that wraps it).
 */
export async function buildWorker(outDir?: string, entry?: string): Promise<WorkerBundle> {
  outDir ??= await mkdtemp(join(tmpdir(), 'website-checks-worker-'));
  await mkdir(outDir, { recursive: true });
  const { code, output } = await runCollected(
    process.execPath,
    [
      join(ROOT, 'node_modules/wrangler/bin/wrangler.js'),
      'deploy',
      ...(entry ? [entry] : []),
      '--dry-run',
      '--outdir',
      outDir,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
    },
  );
  const size = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output);
  if (code !== 0 || !size) throw new Error(`wrangler could not bundle the Worker:\n${output}`);
  const module = (await readdir(outDir)).find((file) => file.endsWith('.js'));
  if (!module) throw new Error(`wrangler left no module in ${outDir}`);
  return { path: join(outDir, module), uploadKiB: Number(size[1]), gzipKiB: Number(size[2]) };
}

export interface LocalEdgeOptions {
  /** The service's variables, as the Worker's vars and secrets. */
  variables: Record<string, string>;
  host: string;
  /**
   * One port per Worker instance. Each instance is its own isolate; all share the Durable Objects,
   * as instances of one Worker in different locations do.
   */
  ports: number[];
  /** An existing bundle (tests build once per file). */
  bundle?: WorkerBundle;
  /** Where the runtime's own output goes (the Worker's console, workerd's messages). */
  output?: (line: string) => void;
  /** An extra trust anchor (PEM) for the emulated network, beside `NODE_EXTRA_CA_CERTS` (tests). */
  extraCa?: string;
}

export interface LocalEdge {
  /** One URL per instance. */
  urls: URL[];
  bundle: WorkerBundle;
  stop(): Promise<void>;
}

export async function startLocalEdge(options: LocalEdgeOptions): Promise<LocalEdge> {
  const { host, ports, output = (line) => process.stdout.write(`${line}\n`) } = options;
  // The Worker runs with NODE_ENV=production, which needs WATCH_SECRET_KEY; local workerd's objects
  // last as long as the runtime, so a key of its own is enough unless one is given.
  const variables = { WATCH_SECRET_KEY: randomBytes(32).toString('base64url'), ...options.variables };
  const bundle = options.bundle ?? (await buildWorker());
  // The bundle is one module already: wrangler's module rules do not apply to it.
  const { modulesRules: _rules, ...workerOptions } =
    unstable_getMiniflareWorkerOptions(WRANGLER_CONFIG).workerOptions;
  const network = edgeNetwork(variables, options.extraCa);
  const instance = (index: number): V4WorkerOptions => ({
    ...workerOptions,
    name: index === 0 ? WORKER_NAME : `${WORKER_NAME}-${index}`,
    modules: true,
    scriptPath: bundle.path,
    modulesRoot: join(bundle.path, '..'),
    bindings: { ...(workerOptions.bindings as Record<string, string> | undefined), ...variables },
    // Every instance reaches the same objects, defined by the first.
    ...(index === 0
      ? {}
      : {
          durableObjects: {
            AUTHORIZATIONS: { className: 'AuthorizationObject', scriptName: WORKER_NAME },
            SETTLERS: { className: 'SettlerObject', scriptName: WORKER_NAME },
            RATE_BUCKETS: { className: 'RateBucketObject', scriptName: WORKER_NAME },
            WATCHES: { className: 'WatchObject', scriptName: WORKER_NAME },
            DOMAIN_CHECKS: { className: 'DomainCheckObject', scriptName: WORKER_NAME },
            WATCH_COUNTS: { className: 'WatchCountObject', scriptName: WORKER_NAME },
            WALLETS: { className: 'WalletObject', scriptName: WORKER_NAME },
            RECEIVER_HOSTS: { className: 'ReceiverHostObject', scriptName: WORKER_NAME },
          },
        }),
    outboundService: network,
    unsafeDirectSockets: [{ host, port: ports[index] }],
  });
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      cf: false,
      unsafeEphemeralDurableObjects: true,
      // The Worker's console arrives as structured logs; workerd's own messages on its stdio.
      handleStructuredLogs: ({ message }: { message: string }) => output(message),
      handleRuntimeStdio(stdout: Readable, stderr: Readable) {
        for (const stream of [stdout, stderr]) {
          stream.setEncoding('utf8');
          let pending = '';
          stream.on('data', (chunk: string) => {
            const lines = (pending + chunk).split('\n');
            pending = lines.pop() ?? '';
            for (const line of lines) if (line !== '') output(line);
          });
        }
      },
      workers: ports.map((_, index) => instance(index)),
    }),
  );
  try {
    await mf.ready;
  } catch (error) {
    // A port already taken, say: leave no runtime behind.
    await mf.dispose().catch(() => {});
    throw error;
  }
  return {
    urls: ports.map((port) => new URL(`http://${host}:${port}`)),
    bundle,
    stop: () => mf.dispose(),
  };
}

/**
 * The Worker's outbound network: names resolved through the configured DoH resolver (the resolvers'
 * own names through the system), TLS verified against Node's store and `NODE_EXTRA_CA_CERTS`.
 */
function edgeNetwork(
  variables: Record<string, string>,
  extraCa: string | undefined,
): (request: Request) => Promise<Response> {
  const { upstreams } = loadConfig(variables);
  const doh = createDohClient({
    fetch: globalThis.fetch,
    primaryUrl: upstreams.dohUrl,
    fallbackUrl: upstreams.dohFallbackUrl,
  });
  const resolverHosts = new Set([upstreams.dohUrl.hostname, upstreams.dohFallbackUrl.hostname]);
  const agent = new Agent({
    connect: {
      // A `ca` replaces the default store, so it is carried along.
      ...(extraCa ? { ca: [...getCACertificates('default'), extraCa] } : {}),
      lookup: edgeLookup(resolverHosts, (name) => resolveAddresses(doh, name)),
    },
  });
  return async (request) => {
    try {
      return (await undiciFetch(request.url, {
        method: request.method,
        headers: [...request.headers],
        body: request.body,
        redirect: 'manual',
        dispatcher: agent,
        ...(request.body ? { duplex: 'half' } : {}),
      })) as unknown as Response;
    } catch (error) {
      // Miniflare would turn the throw into a 500; Cloudflare answers an undeliverable subrequest
      // with its own status instead (src/edge/origin-errors.ts), so the emulation does too.
      return originError(error);
    }
  };
}

/** The response Cloudflare gives a subrequest it could not deliver: 530 (name), 522 (timeout), 523. */
export function originError(error: unknown): Response {
  const codes = new Set<unknown>();
  let link: unknown = error;
  for (let depth = 0; depth < 8 && link !== null && typeof link === 'object'; depth++) {
    codes.add((link as { code?: unknown }).code);
    link = (link as { cause?: unknown }).cause;
  }
  const status =
    codes.has('ENOTFOUND') || codes.has('EAI_AGAIN') ? 530 : codes.has('UND_ERR_CONNECT_TIMEOUT') ? 522 : 523;
  return new Response(`error code: ${status === 530 ? 1016 : status}`, {
    status,
    headers: { 'content-type': 'text/plain; charset=UTF-8' },
  });
}

/**
 * How the emulated edge resolves a name: IP literals and the DoH resolvers' own names through the
 * system, every other name through DoH. Any failure — offline, a transient resolver error, no
 * address — reaches the connection as an error (the Worker's fetch fails, the check answers 502);
 * it never throws out of the callback, which would end the dev process.
 */
export function edgeLookup(
  resolverHosts: ReadonlySet<string>,
  resolve: (name: string) => Promise<SourceResult<string[]>>,
  system: typeof systemLookup = systemLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    // A failed system lookup passes no addresses at all: the error is read first.
    const answer = (error: NodeJS.ErrnoException | null, addresses?: LookupAddress[]) => {
      const first = error ? undefined : addresses?.[0];
      if (!first) {
        callback(
          error ?? Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
          '',
          0,
        );
      } else if (options.all) callback(null, addresses ?? []);
      else callback(null, first.address, first.family);
    };
    if (isIP(hostname) || resolverHosts.has(hostname)) {
      system(hostname, { all: true }, answer);
      return;
    }
    resolve(hostname).then(
      (resolved) =>
        answer(
          null,
          resolved.ok ? resolved.value.map((address) => ({ address, family: isIP(address) })) : [],
        ),
      (error: unknown) => answer(error as NodeJS.ErrnoException),
    );
  };
}
