/**
 * The real service as an operator runs it: `node src/start.js` in its own process (the project's Node
 * 24), with the given environment, on a free loopback port. Its stdout and stderr are kept whole, so
 * tests can read its log lines and prove what it never writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

const STARTUP_TIMEOUT_MS = 45_000;

export interface ServiceProcess {
  /** `http://127.0.0.1:<port>`. */
  url: URL;
  pid: number;
  /** Everything written to stdout and stderr so far, in arrival order. */
  output(): string;
  /** False once the process has exited. */
  alive(): boolean;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` (as a process manager would). */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** The last `last` warning and error lines (pino levels 40 and up) in `output`: for a failure's message. */
export function warningLines(output: string, last = 20): string[] {
  return output
    .split('\n')
    .filter((line) => /"level":(4|5|6)0/.test(line))
    .slice(-last);
}

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Runs `start` on `count` loopback ports that were free a moment ago, and again on fresh ones (at
 * most 3 times) when another process of the parallel suite took one in between.
 */
export async function onFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const ports = await Promise.all(Array.from({ length: count }, () => freeLoopbackPort()));
    try {
      return await start(ports);
    } catch (error) {
      if (attempt === 3 || !takenPort(error)) throw error;
    }
  }
}

/** Miniflare's refusal, or the service's own line, for a port already in use. */
function takenPort(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_ADDRESS_IN_USE' || (typeof message === 'string' && message.includes('is already in use'))
  );
}

/** Spawns `node src/start.js` with `env` (plus PATH, HOME, PORT and HOST) and waits for "listening". */
export function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  return onFreePorts(1, ([port]) => startOnPort(env, port as number));
}

async function startOnPort(env: Record<string, string>, port: number): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['src/start.js'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  const started = performance.now();
  while (!output.includes('"msg":"listening"')) {
    if (child.exitCode !== null || performance.now() - started > STARTUP_TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start (exit ${child.exitCode}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    pid: child.pid ?? 0,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    exited,
    signal: (signal) => void child.kill(signal),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
