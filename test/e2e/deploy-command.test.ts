/**
 * docs/deploy/node.md's production command, run as written with its placeholders filled in: it names
 * every variable `NODE_ENV=production` requires, so the service starts and answers /health. The RPC
 * points at a closed loopback port (no packet leaves the machine; nothing is paid here).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { REPO_ROOT } from '../support/run-command.ts';
import { bashCommands, DEPLOY_START } from './readme-commands.ts';

const STARTUP_TIMEOUT_MS = 45_000;

/** What each placeholder of the command stands for here. */
const FILLED: Record<string, (closedPort: number) => string> = {
  X402_PAY_TO: () => '0x1111111111111111111111111111111111111111',
  X402_RPC_URL: (closedPort) => `http://127.0.0.1:${closedPort}`,
  X402_SETTLER_PRIVATE_KEY: () => `0x${'59'.repeat(32)}`,
  WATCH_SECRET_KEY: () => 'deploy-command-test-watch-secret-0123456789',
};

let service: ChildProcess | undefined;

afterAll(() => {
  if (service?.exitCode === null) service.kill('SIGTERM');
});

describe('docs/deploy/node.md', () => {
  it('starts the service with its production command, placeholders filled in', async () => {
    const doc = await readFile(`${REPO_ROOT}docs/deploy/node.md`, 'utf8');
    const line = bashCommands(doc).find((command) => DEPLOY_START.test(command));
    expect(line, 'the production command of docs/deploy/node.md').toBeDefined();
    const closedPort = await freePort();
    const command = (line ?? '').replace(/\b([A-Z0-9_]+)=(\S+)/g, (whole, name: string) => {
      const fill = FILLED[name];
      return fill ? `${name}=${fill(closedPort)}` : whole;
    });
    const port = await freePort();
    let output = '';
    const started = spawn('bash', ['-c', command], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service = started;
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    let status = 0;
    while (status !== 200) {
      expect(started.exitCode, `the command exited:\n${command}\n${output}`).toBeNull();
      expect(Date.now(), `no /health within ${STARTUP_TIMEOUT_MS} ms:\n${output}`).toBeLessThan(deadline);
      status = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status,
        () => 0,
      );
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const exited = new Promise<number | null>((resolve) => started.once('exit', resolve));
    started.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
