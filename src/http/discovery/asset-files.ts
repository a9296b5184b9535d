/** The page's files read from disk (Node): `assets/` beside this module, Swagger UI from its package. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AssetLoader } from '../../vocabulary/page-assets.ts';

const OWN_FILES = new Set(['home.js', 'home.css', 'favicon.svg']);

export const readAssetFile: AssetLoader = (file) => {
  if (OWN_FILES.has(file)) return readFile(new URL(`./assets/${file}`, import.meta.url));
  const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return readFile(join(swaggerDir, file));
};
