/**
 * Starts the closed test world (every upstream fake on loopback) for manual runs, and prints the
 * environment that points the service at it. Stop with Ctrl-C.
 *   npm run world            # then, in another shell, paste the printed line before `npm start`
 */

import { startWorld } from '../test/world/index.ts';
import { writeCaFile } from '../test/world/test-ca.ts';

const world = await startWorld();
const ca = await writeCaFile(world.site.caPem);
const env = { ...world.env, NODE_EXTRA_CA_CERTS: ca.path };
const line = Object.entries(env)
  .map(([name, value]) => `${name}=${value}`)
  .join(' ');
process.stdout.write(
  [
    `World running: ${world.scenarios.size} scenario domains (${[...world.scenarios.keys()].slice(0, 4).join(', ')}, …).`,
    'Start the service against it with:',
    `  ${line} npm start`,
    '',
  ].join('\n'),
);
const stop = async () => {
  await world.close();
  await ca.remove();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
