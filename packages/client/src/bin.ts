#!/usr/bin/env node
/**
 * The `website-checks-cli` executable. Checks the Node.js version before loading anything that
 * needs it, so an old Node says so in one line instead of failing on syntax or a missing global.
 */
const MIN_NODE_MAJOR = 20;

if (Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR) {
  process.stderr.write(
    `website-checks-cli needs Node.js ${MIN_NODE_MAJOR} or newer; this is ${process.version}.\n`,
  );
  process.exit(1);
}
const { run } = await import('./run.ts');
await run();
