/** Runs a command to its end, stdin closed, collecting what it writes (the scripts' own child processes). */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface Collected {
  code: number | null;
  /** Its stdout and stderr, interleaved as they arrived. */
  output: string;
}

export async function runCollected(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv },
): Promise<Collected> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, output };
}
