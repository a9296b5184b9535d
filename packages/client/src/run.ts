/** Wires the process (argv, environment, streams, exit code) to the CLI's `main`. */
import packageJson from '../package.json' with { type: 'json' };
import { main } from './cli.ts';

export async function run(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), {
    env: process.env,
    fetch: globalThis.fetch,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    version: packageJson.version,
  });
}
