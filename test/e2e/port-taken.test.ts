/**
 * `npm start` and `npm run edge:dev` on a port another process holds: one line naming the port and
 * the fix on stderr, no stack trace, exit 1, and the embedded chain each had started is stopped
 * again.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { REPO_ROOT, run } from '../support/run-command.ts';

it.each([
  { command: 'npm start', args: ['start', '--silent'] },
  { command: 'npm run edge:dev', args: ['run', 'edge:dev', '--silent'] },
])(
  '$command: a taken port ends in one clear line and exit code 1',
  async ({ command, args }) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const started = await run('npm', args, {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1' },
        timeoutMs: 120_000,
      });
      expect(started.code, started.stdout + started.stderr).toBe(1);
      expect(started.stderr).toBe(
        `Port ${port} is already in use (127.0.0.1:${port}): stop the process using it, or start with another PORT, e.g. PORT=8081 ${command}.\n`,
      );
      expect(started.stdout).not.toMatch(/--port|\bat \S+:\d+:\d+/);
      // The embedded chain started before the listen attempt, and was stopped before the exit.
      const chain = /"anvil_pid":(\d+)/.exec(started.stdout);
      if (command === 'npm start') {
        expect(chain, started.stdout).not.toBeNull();
        expect(() => process.kill(Number(chain?.[1]), 0)).toThrow();
      }
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  },
  150_000,
);
