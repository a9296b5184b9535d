/**
 * Once before every test run: build the client package (`packages/client/dist`), which the CLI,
 * pack and README tests run as users do. Skipped when the build is newer than every source file.
 */
import { readdir, stat } from 'node:fs/promises';
import { buildClient, CLIENT_DIR } from '../scripts/build-client.ts';

async function newestSource(): Promise<number> {
  const sources = (await readdir(`${CLIENT_DIR}src`)).map((name) => `${CLIENT_DIR}src/${name}`);
  const times = await Promise.all(
    [...sources, `${CLIENT_DIR}package.json`, new URL('../scripts/build-client.ts', import.meta.url)].map(
      async (path) => (await stat(path)).mtimeMs,
    ),
  );
  return Math.max(...times);
}

async function builtAt(): Promise<number> {
  try {
    const outputs = await Promise.all(['cli.js', 'index.d.ts'].map((name) => stat(`${CLIENT_DIR}dist/${name}`)));
    return Math.min(...outputs.map((output) => output.mtimeMs));
  } catch {
    return 0;
  }
}

export default async function setup(): Promise<void> {
  if ((await builtAt()) > (await newestSource())) return;
  await buildClient();
}
