/**
 * Builds the publishable client package (`packages/client`): one plain-JavaScript bundle per entry
 * (the typed API and the CLI) with its dependencies inlined, for Node.js 20 and newer, the API's
 * type declarations, and the licence. `npm run build:client`; `npm pack` in the package runs it.
 *   --no-declarations  skip the type declarations (the slow part), to run the CLI in place
 *   --if-stale         do nothing when the outputs are newer than every source file
 */
import { execFile } from 'node:child_process';
import { copyFile, readdir, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
export const CLIENT_DIR = `${root}packages/client/`;
const DIST = `${CLIENT_DIR}dist`;

export interface BuildOptions {
  declarations?: boolean;
  /** Skip the build when its outputs are newer than every source file (they may be in use). */
  ifStale?: boolean;
}

export async function buildClient({
  declarations = true,
  ifStale = false,
}: BuildOptions = {}): Promise<void> {
  const outputs = declarations ? ['cli.js', 'index.d.ts'] : ['cli.js'];
  if (ifStale && (await builtAt(outputs)) > (await newestSource())) return;
  await rm(DIST, { recursive: true, force: true });
  await build({
    entryPoints: { index: `${CLIENT_DIR}src/index.ts`, cli: `${CLIENT_DIR}src/bin.ts` },
    outdir: DIST,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    // The bundled packages' licence notices, one file per output.
    legalComments: 'linked',
    // CommonJS inside the bundle (the sign-in's SIWE parser) requires Node's built-ins, e.g.
    // `buffer`: an ES module has no `require` of its own, so each output gets one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  await copyFile(`${root}LICENSE`, `${CLIENT_DIR}LICENSE`);
  if (!declarations) return;
  const tsc = `${root}node_modules/typescript/bin/tsc`;
  await promisify(execFile)(process.execPath, [tsc, '-p', `${CLIENT_DIR}tsconfig.json`]);
}

async function newestSource(): Promise<number> {
  const sources = (await readdir(`${CLIENT_DIR}src`)).map((name) => `${CLIENT_DIR}src/${name}`);
  const paths = [...sources, `${CLIENT_DIR}package.json`, fileURLToPath(import.meta.url)];
  return Math.max(...(await Promise.all(paths.map(async (path) => (await stat(path)).mtimeMs))));
}

/** When the oldest of `outputs` was written, or 0 when one is missing. */
async function builtAt(outputs: string[]): Promise<number> {
  try {
    const times = await Promise.all(outputs.map(async (name) => (await stat(`${DIST}/${name}`)).mtimeMs));
    return Math.min(...times);
  } catch {
    return 0;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await buildClient({
    declarations: !process.argv.includes('--no-declarations'),
    ifStale: process.argv.includes('--if-stale'),
  });
