#!/usr/bin/env node
// The `website-checks` command. Node 24 strips TypeScript types natively, so the CLI source runs
// as-is with no build step; this file only wires the process to it.
import { main } from '../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  fetch: globalThis.fetch,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
