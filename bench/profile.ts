/**
 * `npm run bench:profile -- [path] [seconds]`: the service under autocannon load (50 connections)
 * with V8's CPU profiler on; prints the functions with the most self time and inclusive time by
 * package (start-up left out), the CPU per request and what the request log, metrics and the free-work
 * limit take of it (by profile attribution), and leaves the `.cpuprofile` in bench/profiles/ (open it in Chrome DevTools).
 * Default path: `/v1/validate?domain=example.com`, 10 s.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, serviceEnv, startCommand, waitReady } from './http.ts';

const path = process.argv[2] ?? '/v1/validate?domain=example.com';
const seconds = Number(process.argv[3] ?? 10);
const dir = join(import.meta.dirname, 'profiles');

const port = await freePort();
const spawnedAt = performance.now();
const { flags, entry } = startCommand();
const service = spawn(process.execPath, [...flags, '--cpu-prof', `--cpu-prof-dir=${dir}`, entry], {
  env: serviceEnv(port),
  stdio: ['ignore', 'ignore', 'inherit'],
});
const url = `http://127.0.0.1:${port}${path}`;
await waitReady(url, service);
// Samples before this point are start-up (module loading, the local chain): left out.
const readyAfterMs = performance.now() - spawnedAt;
const result = await autocannon({ url, connections: 50, duration: seconds });
process.stdout.write(`${path}: ${Math.round(result.requests.average)} req/s\n`);
service.kill('SIGTERM');
await new Promise((resolve) => service.once('exit', resolve));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const newest = readdirSync(dir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .map((name) => join(dir, name))
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!newest) throw new Error('no profile written');
const profile = JSON.parse(readFileSync(newest, 'utf8')) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const where = (node: ProfileNode) => {
  const file = node.callFrame.url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
  return file.includes('node_modules/')
    ? file.split('node_modules/').pop()?.split('/').slice(0, 2).join('/')
    : file;
};
/**
 * The product's own per-request parts, by the files their code is in: a sample counts for a part
 * when a function of one of its files is on the stack (the log's writes, made later by sonic-boom,
 * included).
 */
const PARTS: Record<string, string[]> = {
  'request log': ['src/http/hygiene/request-log.ts', 'src/logger.ts', 'sonic-boom/index.js'],
  metrics: ['src/http/ops/instrument.ts', 'src/ops/metrics.ts'],
  'free-work limit': [
    'src/http/ops/rate-limit.ts',
    'src/ops/rate-buckets.ts',
    'src/ops/client-address.ts',
    'src/http/ops/free-work.ts',
  ],
};
const byPart = new Map<string, number>();
const self = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
let idle = 0;
let elapsedMs = 0;
profile.samples.forEach((id, index) => {
  const ms = (profile.timeDeltas[index] ?? 0) / 1000;
  elapsedMs += ms;
  if (elapsedMs < readyAfterMs) return;
  total += ms;
  const node = byId.get(id);
  if (!node) return;
  if (node.callFrame.functionName === '(idle)') idle += ms;
  const key = `${node.callFrame.functionName || '(anonymous)'} ${where(node)}:${node.callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + ms);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const file = where(byId.get(at) as ProfileNode) ?? '';
    if (file && !seen.has(file)) {
      seen.add(file);
      byPackage.set(file, (byPackage.get(file) ?? 0) + ms);
    }
  }
  for (const [part, files] of Object.entries(PARTS))
    if (files.some((file) => seen.has(file))) byPart.set(part, (byPart.get(part) ?? 0) + ms);
});
const requests = result.requests.total;
const usPerRequest = (ms: number) => ((ms * 1000) / requests).toFixed(1);
const parts = Object.keys(PARTS)
  .map((part) => `${usPerRequest(byPart.get(part) ?? 0).padStart(6)} µs  ${part}`)
  .join('\n');
const top = (map: Map<string, number>, count: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `${((ms / total) * 100).toFixed(1).padStart(5)} %  ${key}`)
    .join('\n');
process.stdout.write(
  `\nself time (${newest})\n${top(self, 20)}\n\ninclusive, by file or package\n${top(byPackage, 25)}\n` +
    `\nCPU per request on the main thread (samples, idle left out): ${usPerRequest(total - idle)} µs, of which\n${parts}\n`,
);
