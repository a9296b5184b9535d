/**
 * The Worker in local workerd beside the Node service, one run: `/v1/validate` and the unpaid 402
 * of a paid route, autocannon on loopback, runs interleaved (Node, Worker, Node, …). Both start as
 * a reader starts them (`npm start`'s entry, `scripts/edge-dev.ts`), each with its own embedded chain.
 * Local workerd is one process serving one isolate; the figure compares runtimes on this machine,
 * not the edge's capacity.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { freePort, median, serviceEnv, startCommand, waitReady } from './http.ts';

export interface EdgeRow {
  route: string;
  node_rps: number[];
  worker_rps: number[];
  /** Worker ÷ Node, medians. */
  ratio: number;
  worker_p99_ms: number;
}

export interface EdgeReport {
  rows: EdgeRow[];
  bundle_gzip_kib: number;
  seconds: number;
  repetitions: number;
}

const ROUTES = ['/v1/validate?domain=example.com', '/v1/cert?domain=example.com'];

function start(script: string, port: number): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [script], {
    // The same free-work budget as the Node bench: every free request on the Worker takes from its
    // client's bucket object (`RateBucketObject`), whose cost is measured.
    env: serviceEnv(port),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Only the start-up lines are read; the request log is dropped.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (output.length < 65_536) output += chunk.toString();
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function benchEdge({ seconds = 10, repetitions = 3 } = {}): Promise<EdgeReport> {
  const [nodePort, workerPort] = await Promise.all([freePort(), freePort()]);
  const node = start(startCommand().entry, nodePort);
  const worker = start('scripts/edge-dev.ts', workerPort);
  try {
    const bases = { node: `http://127.0.0.1:${nodePort}`, worker: `http://127.0.0.1:${workerPort}` };
    await Promise.all([
      waitReady(`${bases.node}/health`, node.child),
      waitReady(`${bases.worker}/health`, worker.child),
    ]);
    const gzip = /"bundle_gzip_kib":([\d.]+)/.exec(worker.output())?.[1];
    const rows: EdgeRow[] = [];
    for (const path of ROUTES) {
      // Warm both: JIT, the app built on the first request, the challenge header cached.
      for (const base of Object.values(bases))
        await autocannon({ url: base + path, connections: 10, duration: 1 });
      const runs = { node: [] as autocannon.Result[], worker: [] as autocannon.Result[] };
      for (let rep = 0; rep < repetitions; rep += 1) {
        for (const name of ['node', 'worker'] as const) {
          const result = await autocannon({ url: bases[name] + path, connections: 50, duration: seconds });
          if (result.errors > 0) throw new Error(`${name} ${path}: ${result.errors} errors`);
          runs[name].push(result);
        }
      }
      const nodeRps = runs.node.map((run) => Math.round(run.requests.average));
      const workerRps = runs.worker.map((run) => Math.round(run.requests.average));
      rows.push({
        route: path.split('?')[0] === '/v1/cert' ? '402 /v1/cert' : (path.split('?')[0] as string),
        node_rps: nodeRps,
        worker_rps: workerRps,
        ratio: Math.round((median(workerRps) / median(nodeRps)) * 100) / 100,
        worker_p99_ms: median(runs.worker.map((run) => run.latency.p99)),
      });
    }
    return { rows, bundle_gzip_kib: Number(gzip ?? 0), seconds, repetitions };
  } finally {
    await Promise.all([stop(node.child), stop(worker.child)]);
  }
}
