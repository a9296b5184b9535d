/**
 * Runs a command as a user would, collecting its output: the client's built CLI under the oldest
 * Node.js it supports when the machine has one (the system `node`, 20 on CI), or any shell line.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI_BIN = `${REPO_ROOT}packages/client/dist/cli.js`;

/** The machine's own Node.js (20 on CI) when installed, else the project's Node.js 24. */
export const SYSTEM_NODE =
  ['/usr/bin/node', '/usr/local/bin/node'].find((path) => existsSync(path)) ?? process.execPath;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `file` with `args`; resolves when it exits. `env` is the whole environment given to it. */
export function run(
  file: string,
  args: readonly string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    shell?: boolean;
    timeoutMs?: number;
  } = {},
): Promise<Run> {
  const child = spawn(file, [...args], {
    env: options.env ?? { PATH: process.env.PATH, HOME: process.env.HOME },
    cwd: options.cwd,
    shell: options.shell,
    timeout: options.timeoutMs ?? 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The built CLI under `SYSTEM_NODE`, with only PATH and the given variables in its environment. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  bin = CLI_BIN,
): Promise<Run> {
  return run(SYSTEM_NODE, [bin, ...args], { env: { PATH: process.env.PATH, ...env } });
}
