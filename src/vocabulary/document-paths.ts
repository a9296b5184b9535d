/**
 * Where each public discovery document lives, and the service's identity shown in all of them.
 * Every document builds its absolute URLs from `config.publicBaseUrl` through `absoluteUrl`.
 */
import packageJson from '../../package.json' with { type: 'json' };

/** Paths of the public, free documents and endpoints (spec "Discovery endpoints"). */
export const DOCUMENT_PATHS = {
  index: '/',
  health: '/health',
  openapi: '/openapi.json',
  x402: '/.well-known/x402',
  llmsTxt: '/llms.txt',
  apiCatalog: '/.well-known/api-catalog',
  sitemap: '/sitemap.xml',
  mcp: '/mcp',
  serverCard: '/mcp/server-card',
  serverJson: '/mcp/server.json',
  aiCatalog: '/.well-known/ai-catalog.json',
} as const;

export const SERVICE_TITLE = 'Website Checks';
/** The package version; also the OpenAPI `info.version` and the server card `version`. */
export const SERVICE_VERSION: string = packageJson.version;
/** At most 100 characters: the server card's limit (SEP-2127 `description`). */
export const SERVICE_SHORT_DESCRIPTION =
  'Pay-per-call domain checks (certificates, DNS, registration expiry) for agents; x402 v2 in USDC.';

export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.1';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

/**
 * `base` (no trailing slash, as `loadConfig` guarantees) + `path` → absolute URL. Concatenated rather
 * than resolved, so a base with a path prefix (a reverse proxy at `/checks`) keeps it.
 */
export function absoluteUrl(base: string, path: `/${string}`): string {
  return `${base}${path}`;
}

/** Host name of the public base URL, e.g. `checks.example.com` (no port). */
export function publicHostname(base: string): string {
  return new URL(base).hostname;
}
