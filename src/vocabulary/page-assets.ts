/**
 * The files behind the page at `/`: its own script, style sheet and icon (in `http/discovery/assets/`),
 * and Swagger UI's bundle from the installed `swagger-ui-dist` package, never from a CDN.
 * Paths carry a version, so browsers may keep them for a year. How the bytes are read is the
 * runtime's business (`AssetLoader`): files on Node, modules bundled into the Worker.
 */
import swaggerPackage from 'swagger-ui-dist/package.json' with { type: 'json' };
import { SERVICE_VERSION } from './document-paths.ts';

export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The page's files: its own (`assets/`) and Swagger UI's. */
export type AssetFile = 'home.js' | 'home.css' | 'favicon.svg' | 'swagger-ui-bundle.js' | 'swagger-ui.css';

/** Reads one of the page's files. */
export type AssetLoader = (file: AssetFile) => Promise<string | Buffer>;

export interface PageAsset {
  path: `/${string}`;
  contentType: string;
  file: AssetFile;
}

const swaggerBase = `/assets/swagger-ui-${swaggerPackage.version}` as const;

export const PAGE_ASSETS = {
  script: {
    path: `/assets/${SERVICE_VERSION}/home.js`,
    contentType: 'text/javascript; charset=utf-8',
    file: 'home.js',
  },
  style: {
    path: `/assets/${SERVICE_VERSION}/home.css`,
    contentType: 'text/css; charset=utf-8',
    file: 'home.css',
  },
  swaggerScript: {
    path: `${swaggerBase}/swagger-ui-bundle.js`,
    contentType: 'text/javascript; charset=utf-8',
    file: 'swagger-ui-bundle.js',
  },
  swaggerStyle: {
    path: `${swaggerBase}/swagger-ui.css`,
    contentType: 'text/css; charset=utf-8',
    file: 'swagger-ui.css',
  },
} as const satisfies Record<string, PageAsset>;

/** The icon, at `/favicon.svg` (linked from the page) and `/favicon.ico` (where browsers look first). */
export const FAVICON: Omit<PageAsset, 'path'> & { paths: readonly `/${string}`[] } = {
  paths: ['/favicon.svg', '/favicon.ico'],
  contentType: 'image/svg+xml',
  file: 'favicon.svg',
};
