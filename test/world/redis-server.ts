/**
 * A real `redis-server` (Redis 7, Debian's package; `npm test` installs it when missing) on a free
 * loopback port, persisting nothing unless `args` say otherwise, in a temporary directory. It can be
 * stopped and started again on the same port, as an operator's Redis going away and coming back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { onFreePorts } from './service-process.ts';

const START_TIMEOUT_MS = 10_000;

export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  url: URL;
  /** A client of the server, without the service's key prefix (tests read what the service wrote). */
  client: Redis;
  /** Stops the server process (SIGKILL: gone at once, as a crashed Redis). */
  stop(): Promise<void>;
  /** Starts it again on the same port: empty, or with what `args`' persistence kept. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** `args`: more command-line options, overriding the defaults (e.g. compose.yaml's). */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-world-'));
  let child: ChildProcess | undefined;
  const port = await onFreePorts(1, async ([free]) => {
    child = await launch(free as number, dir, args);
    return free as number;
  });
  const url = new URL(`redis://127.0.0.1:${port}`);
  const client = new Redis(url.href, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // Tests stop the server on purpose: the client's reconnect errors are expected, not printed.
  client.on('error', () => {});
  await client.connect();
  const stop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  return {
    url,
    client,
    stop,
    async start() {
      child = await launch(port, dir, args);
    },
    async close() {
      client.disconnect();
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function launch(port: number, dir: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let output = '';
  // Not installed: say so instead of an unhandled ENOENT (`npm test` installs it when missing).
  child.once('error', (error) => (output += `redis-server could not be started: ${error.message}\n`));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = performance.now();
  while (!output.includes('Ready to accept connections')) {
    const failed = child.exitCode !== null || output.includes('could not be started');
    if (failed || performance.now() - started > START_TIMEOUT_MS) {
      child.kill('SIGKILL');
      // The service-process helper retries on this message when another process took the port.
      const taken = /Address already in use/.test(output) ? ' is already in use' : '';
      throw new Error(`redis-server did not start on port ${port}${taken}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}
