/**
 * `npm run test:busy`: `npm test` (or the command given after `--`) with two busy loops beside it,
 * each holding a core, stopped once it ends. The suite must not depend on the machine's speed
 * (CONTRIBUTING.md, "Tests"): on a 2-core machine this leaves it the share of a machine doing other
 * work. Exits with the command's status.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const BUSY_LOOPS = 2;

/** Runs `command` with `loops` busy loops beside it; resolves its exit code (1 when it was signalled). */
export async function runBusy(command: readonly string[], loops = BUSY_LOOPS): Promise<number> {
  const [file, ...args] = command;
  if (!file) throw new Error('no command to run');
  const busy: ChildProcess[] = Array.from({ length: loops }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  const stopLoops = () => {
    for (const loop of busy) loop.kill('SIGKILL');
  };
  process.once('exit', stopLoops);
  try {
    const child = spawn(file, args, { stdio: 'inherit' });
    const [code] = (await once(child, 'exit')) as [number | null];
    return code ?? 1;
  } finally {
    stopLoops();
    process.off('exit', stopLoops);
  }
}

if (import.meta.main) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const given = process.argv.slice(2);
  process.exitCode = await runBusy(given.length > 0 ? given : ['npm', 'test']);
}
