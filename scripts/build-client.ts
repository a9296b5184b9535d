/**
 * Builds the publishable client package (`packages/client`): one plain-JavaScript bundle per entry
 * (the typed API and the CLI) with its dependencies inlined, for Node.js 20 and newer, the API's
 * type declarations, and the licence. `npm run build:client`; `npm pack` in the package runs it.
 */
import { execFile } from 'node:child_process';
import { copyFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
export const CLIENT_DIR = `${root}packages/client/`;
/** The executable the package's `bin` names. */
export const CLIENT_BIN = `${CLIENT_DIR}dist/cli.js`;

/** `declarations: false` skips the type declarations (the slow part), for running the CLI in place. */
export async function buildClient({ declarations = true } = {}): Promise<void> {
  const dist = `${CLIENT_DIR}dist`;
  await rm(dist, { recursive: true, force: true });
  await build({
    entryPoints: { index: `${CLIENT_DIR}src/index.ts`, cli: `${CLIENT_DIR}src/bin.ts` },
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    // The bundled packages' licence notices, one file per output.
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await copyFile(`${root}LICENSE`, `${CLIENT_DIR}LICENSE`);
  if (!declarations) return;
  const tsc = `${root}node_modules/typescript/bin/tsc`;
  await promisify(execFile)(process.execPath, [tsc, '-p', `${CLIENT_DIR}tsconfig.json`]);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await buildClient({ declarations: !process.argv.includes('--no-declarations') });
