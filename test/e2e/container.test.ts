/**
 * The container without a Docker daemon: the Dockerfile's shape, and its commands run in a clean
 * copy of what `.dockerignore` lets into the image: its `RUN` (the production install, here with
 * `--offline` from the npm cache the project's own install filled: tests never reach a registry),
 * then `CMD` starts the service from that install, the `HEALTHCHECK` command passes, and the
 * `STOPSIGNAL` ends it with exit code 0.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/run-command.ts';
import { freePort } from '../support/free-port.ts';

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
const instructions = dockerfile
  .split('\n')
  .filter((line) => /^[A-Z]+ /.test(line))
  .map((line) => {
    const space = line.indexOf(' ');
    return { op: line.slice(0, space), arg: line.slice(space + 1).trim() };
  });
const all = (op: string) => instructions.filter((i) => i.op === op).map((i) => i.arg);
const execForm = (arg: string) => JSON.parse(arg.slice(arg.indexOf('['))) as string[];

describe('container image', () => {
  const copy = mkdtempSync(join(tmpdir(), 'website-checks-image-'));
  let service: ChildProcess | undefined;
  afterAll(() => {
    service?.kill('SIGKILL');
    rmSync(copy, { recursive: true, force: true });
  });

  it('is multi-stage on node:24-slim, installs production dependencies, runs as node, stops on SIGTERM', () => {
    expect(all('FROM').map((from) => from.split(' ')[0])).toEqual(['node:24-slim', 'node:24-slim']);
    // The second gives the embedded watch store (WATCH_DB_PATH) a directory the node user owns.
    expect(all('RUN')).toEqual(['npm ci --omit=dev', 'mkdir -p /app/data && chown node:node /app/data']);
    expect(all('USER')).toEqual(['node']);
    expect(all('STOPSIGNAL')).toEqual(['SIGTERM']);
    expect(execForm(all('CMD')[0] ?? '')).toEqual(['node', '--max-semi-space-size=16', 'src/start.js']);
    expect(all('HEALTHCHECK')).toHaveLength(1);
    const ignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8');
    expect(ignore).toMatch(/^\*\*$/m);
  });

  it('installs with RUN, starts with CMD in a clean copy, passes HEALTHCHECK, exits 0 on STOPSIGNAL', async () => {
    for (const path of ['package.json', 'package-lock.json', 'src', 'contracts/build']) {
      cpSync(join(REPO_ROOT, path), join(copy, path), { recursive: true });
    }
    // The project's Node 24 stands in for the base image's.
    const path = `${join(REPO_ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}`;
    const install = `${all('RUN')[0] ?? ''} --offline --no-audit --no-fund`;
    const installed = await new Promise<number>((resolve) => {
      execFile(
        'sh',
        ['-c', install],
        { cwd: copy, env: { PATH: path, HOME: process.env.HOME }, timeout: 150_000 },
        (error) => resolve(error ? Number(error.code ?? 1) : 0),
      );
    });
    expect(installed).toBe(0);
    expect(existsSync(join(copy, 'node_modules/hono/package.json'))).toBe(true);
    expect(existsSync(join(copy, 'node_modules/vitest'))).toBe(false); // production dependencies only
    const port = await freePort();
    const closedPort = await freePort();
    const env = {
      PATH: path,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      X402_FACILITATOR_URL: `http://127.0.0.1:${closedPort}`,
      X402_PAY_TO: '0x1111111111111111111111111111111111111111',
      WATCH_SECRET_KEY: 'container-test-watch-secret-key-0123456789',
    };
    const [command, ...args] = execForm(all('CMD')[0] ?? '');
    const started = spawn(command ?? 'node', args, { cwd: copy, env, stdio: ['ignore', 'ignore', 'pipe'] });
    service = started;
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));

    const [healthCommand, ...healthArgs] = execForm(all('HEALTHCHECK')[0] ?? '');
    const healthcheck = () =>
      new Promise<number>((resolve) => {
        execFile(healthCommand ?? 'node', healthArgs, { cwd: copy, env }, (error) =>
          resolve(error ? Number(error.code ?? 1) : 0),
        );
      });
    let status = 1;
    for (let attempt = 0; attempt < 50 && status !== 0; attempt += 1) {
      status = await healthcheck();
      if (status !== 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(0);
    // The facilitator is unreachable: alive, but not ready.
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);

    started.kill(all('STOPSIGNAL')[0] as NodeJS.Signals);
    expect(await exited).toBe(0);
  }, 180_000);
});
