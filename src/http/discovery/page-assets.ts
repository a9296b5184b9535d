/**
 * The files behind the page at `/`: its own script, style sheet and icon (beside this module), and
 * Swagger UI's bundle served from the installed `swagger-ui-dist` package, never from a CDN. Paths
 * carry a version, so browsers may keep them for a year.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { SERVICE_VERSION } from './document-paths.ts';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerVersion = (require('swagger-ui-dist/package.json') as { version: string }).version;

export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export interface PageAsset {
  path: `/${string}`;
  contentType: string;
  load: () => Promise<Buffer>;
}

const own = (file: string) => () => readFile(new URL(`./assets/${file}`, import.meta.url));
const swagger = (file: string) => () => readFile(`${swaggerDir}/${file}`);

export const PAGE_ASSETS = {
  script: {
    path: `/assets/${SERVICE_VERSION}/home.js`,
    contentType: 'text/javascript; charset=utf-8',
    load: own('home.js'),
  },
  style: {
    path: `/assets/${SERVICE_VERSION}/home.css`,
    contentType: 'text/css; charset=utf-8',
    load: own('home.css'),
  },
  swaggerScript: {
    path: `/assets/swagger-ui-${swaggerVersion}/swagger-ui-bundle.js`,
    contentType: 'text/javascript; charset=utf-8',
    load: swagger('swagger-ui-bundle.js'),
  },
  swaggerStyle: {
    path: `/assets/swagger-ui-${swaggerVersion}/swagger-ui.css`,
    contentType: 'text/css; charset=utf-8',
    load: swagger('swagger-ui.css'),
  },
} as const satisfies Record<string, PageAsset>;

/** The icon, at `/favicon.svg` (linked from the page) and `/favicon.ico` (where browsers look first). */
export const FAVICON: Omit<PageAsset, 'path'> & { paths: readonly `/${string}`[] } = {
  paths: ['/favicon.svg', '/favicon.ico'],
  contentType: 'image/svg+xml',
  load: own('favicon.svg'),
};
