/**
 * Mounts the discovery documents and `/health`. Every document is built once from the catalog and
 * `config.publicBaseUrl` when the routes are created; none of them calls a check runner.
 */
import { Hono } from 'hono';
import { etag, RETAINED_304_HEADERS } from 'hono/etag';
import type { Config } from '../../config.ts';
import { AI_CATALOG_MEDIA_TYPE, buildAiCatalog } from './ai-catalog.ts';
import { API_CATALOG_MEDIA_TYPE, apiCatalogLinkHeader, buildApiCatalog } from './api-catalog.ts';
import { DOCUMENT_PATHS, SERVER_CARD_MEDIA_TYPE } from './document-paths.ts';
import { buildLlmsTxt, LLMS_TXT_MEDIA_TYPE } from './llms-txt.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { buildServerCard, SERVER_CARD_CACHE_CONTROL, SERVER_CARD_CORS_HEADERS } from './server-card.ts';
import { buildServiceIndex } from './service-index.ts';
import { buildSitemap, SITEMAP_MEDIA_TYPE } from './sitemap.ts';
import { buildX402Manifest } from './x402-manifest.ts';

/**
 * Paths that answer CORS themselves with the server card's exact policy (SEP-2127); the app-wide
 * CORS middleware leaves them alone.
 */
export const CARD_CORS_PATHS: readonly string[] = [DOCUMENT_PATHS.serverCard, DOCUMENT_PATHS.aiCatalog];

// A 304 keeps the card's CORS headers so a browser can still read the revalidated response.
const CARD_304_HEADERS = [...RETAINED_304_HEADERS, ...Object.keys(SERVER_CARD_CORS_HEADERS), 'x-request-id'];

const CARD_HEADERS = { ...SERVER_CARD_CORS_HEADERS, 'cache-control': SERVER_CARD_CACHE_CONTROL };

/** The discovery routes for `config.publicBaseUrl`, to mount at `/`. */
export function discoveryRoutes(config: Config): Hono {
  const base = config.publicBaseUrl;
  const json = (value: unknown) => JSON.stringify(value);
  const bodies = {
    index: json(buildServiceIndex(base)),
    openapi: json(buildOpenApiDocument(base)),
    x402: json(buildX402Manifest(base)),
    llmsTxt: buildLlmsTxt(base),
    apiCatalog: json(buildApiCatalog(base)),
    sitemap: buildSitemap(base),
    serverCard: json(buildServerCard(base)),
    aiCatalog: json(buildAiCatalog(base)),
  };
  const catalogLink = apiCatalogLinkHeader(base);
  const jsonType = 'application/json; charset=utf-8';

  const routes = new Hono();
  for (const path of CARD_CORS_PATHS) {
    routes.use(path, etag({ retainedHeaders: CARD_304_HEADERS }));
    // The CORS preflight for the card answers with the same exact headers.
    routes.options(path, (c) => c.body(null, 204, SERVER_CARD_CORS_HEADERS));
  }

  routes.get(DOCUMENT_PATHS.index, (c) =>
    c.body(bodies.index, 200, { 'content-type': jsonType, link: catalogLink }),
  );
  routes.get(DOCUMENT_PATHS.health, (c) => c.json({ status: 'ok' }));
  routes.get(DOCUMENT_PATHS.openapi, (c) => c.body(bodies.openapi, 200, { 'content-type': jsonType }));
  routes.get(DOCUMENT_PATHS.x402, (c) => c.body(bodies.x402, 200, { 'content-type': jsonType }));
  routes.get(DOCUMENT_PATHS.llmsTxt, (c) =>
    c.body(bodies.llmsTxt, 200, { 'content-type': LLMS_TXT_MEDIA_TYPE }),
  );
  // RFC 9727 §4.1: HEAD must carry the same Link header; Hono answers HEAD from this GET with no body.
  routes.get(DOCUMENT_PATHS.apiCatalog, (c) =>
    c.body(bodies.apiCatalog, 200, { 'content-type': API_CATALOG_MEDIA_TYPE, link: catalogLink }),
  );
  routes.get(DOCUMENT_PATHS.sitemap, (c) =>
    c.body(bodies.sitemap, 200, { 'content-type': SITEMAP_MEDIA_TYPE }),
  );
  routes.get(DOCUMENT_PATHS.serverCard, (c) =>
    c.body(bodies.serverCard, 200, { ...CARD_HEADERS, 'content-type': SERVER_CARD_MEDIA_TYPE }),
  );
  routes.get(DOCUMENT_PATHS.aiCatalog, (c) =>
    c.body(bodies.aiCatalog, 200, { ...CARD_HEADERS, 'content-type': AI_CATALOG_MEDIA_TYPE }),
  );
  return routes;
}
