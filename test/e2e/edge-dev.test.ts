/**
 * `npm run edge:dev` as a reader runs it: with no payment configuration it starts the embedded
 * chain and the Worker in local workerd on `PORT`, the client command it prints pays for a check
 * through the Worker's settler object, and SIGTERM to npm stops the runtime and the chain.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { REPO_ROOT, run } from '../support/run-command.ts';
import { startWorld, type World } from '../world/index.ts';
import { type CaFile, writeCaFile } from '../world/test-ca.ts';

const STARTUP_TIMEOUT_MS = 90_000;

let world: World;
let ca: CaFile;
let edge: ChildProcess;
let output = '';
let port = 0;
let command = '';

beforeAll(async () => {
  world = await startWorld();
  ca = await writeCaFile(world.site.caPem);
  port = await freePort();
  edge = spawn('npm', ['run', 'edge:dev'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: ca.path,
      ...world.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  edge.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  edge.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = performance.now();
  while (!(output.includes('"msg":"listening"') && /npm run -s cli -- .+$/m.test(output))) {
    if (edge.exitCode !== null || performance.now() - started > STARTUP_TIMEOUT_MS) {
      throw new Error(`edge:dev did not start (exit ${edge.exitCode}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  command = /^\s*(X402_PRIVATE_KEY=0x[0-9a-f]{64} npm run -s cli -- .+)$/m.exec(output)?.[1]?.trim() ?? '';
}, STARTUP_TIMEOUT_MS + 10_000);

afterAll(async () => {
  if (edge && edge.exitCode === null) edge.kill('SIGKILL');
  await world?.close();
  await ca?.remove();
});

describe('npm run edge:dev', () => {
  it('serves the Worker on PORT and pays for the printed check on the embedded chain', async () => {
    expect(JSON.parse(/^\{.*"msg":"listening".*\}$/m.exec(output)?.[0] ?? '{}')).toMatchObject({
      runtime: 'workerd',
      port,
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ status: 'ok' });
    expect(command).toContain(`--url http://localhost:${port}`);
    const paid = await run('bash', ['-c', command], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ domain: 'healthy-shop.com' });
    expect(paid.stderr).toMatch(/0x[0-9a-f]{64}/); // the settlement transaction
    expect(output).not.toMatch(/uncaught|"level":50/i);
  }, 60_000);

  it('stops on SIGTERM, with its embedded chain', async () => {
    const listening = JSON.parse(/^\{.*"msg":"listening".*\}$/m.exec(output)?.[0] ?? '{}') as {
      pid: number;
      anvil_pid: number;
    };
    expect(listening.anvil_pid).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => edge.on('exit', resolve));
    process.kill(edge.pid ?? 0, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(() => process.kill(listening.pid, 0)).toThrow();
    expect(() => process.kill(listening.anvil_pid, 0)).toThrow();
  }, 30_000);
});
