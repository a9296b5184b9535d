/**
 * `npm test`'s first step: the commands given as arguments, side by side (the machine's provisioning,
 * the typecheck and the linters are independent, each on one core), each one's output printed whole
 * when it ends, under a line with its command, its result and its time. Exits 1 once all have ended
 * if any failed, so no test runs after a failed step.
 */
import { runCollected } from './run-collected.ts';

export interface Ran {
  command: string;
  ok: boolean;
  /** Its stdout and stderr. */
  output: string;
  ms: number;
}

/** Runs a command line in a shell to its end. */
export type RunCommand = (command: string) => Promise<{ code: number | null; output: string }>;

/** Runs every command at once; `report` gets each as it ends. Resolves true when all succeeded. */
export async function runTogether(
  commands: readonly string[],
  run: RunCommand,
  report: (ran: Ran) => void,
  now: () => number = performance.now.bind(performance),
): Promise<boolean> {
  const results = await Promise.all(
    commands.map(async (command) => {
      const started = now();
      const { code, output } = await run(command).catch((error: unknown) => ({
        code: null,
        output: String(error),
      }));
      const ran = { command, ok: code === 0, output, ms: now() - started };
      report(ran);
      return ran.ok;
    }),
  );
  return results.every(Boolean);
}

/** The header line and the output of one command, as printed. */
export function printed({ command, ok, output, ms }: Ran): string {
  const header = `> ${command}: ${ok ? 'ok' : 'FAILED'} (${(ms / 1000).toFixed(1)} s)`;
  const body = output.trimEnd();
  return body === '' ? `${header}\n` : `${header}\n${body}\n`;
}

if (import.meta.main) {
  const commands = process.argv.slice(2);
  const ok = await runTogether(
    commands,
    (command) => runCollected('sh', ['-c', command], { env: process.env }),
    (ran) => (ran.ok ? process.stdout : process.stderr).write(printed(ran)),
  );
  if (!ok) process.exit(1);
}
