/**
 * Mounts the discovery documents, the page for people at `/`, its assets, `/robots.txt`, the icon and
 * `/health`. Every document is built once from the catalog and `config.publicBaseUrl` when the
 * routes are created, and served compressed with an ETag and `Cache-Control`; none calls a runner.
 */
import { Hono } from 'hono';
import type { Config } from '../../config.ts';
import { reply } from '../hygiene/standard-headers.ts';
import { AI_CATALOG_MEDIA_TYPE, buildAiCatalog } from './ai-catalog.ts';
import { API_CATALOG_MEDIA_TYPE, apiCatalogLinkHeader, buildApiCatalog } from './api-catalog.ts';
import { DOCUMENT_PATHS, SERVER_CARD_MEDIA_TYPE } from '../../vocabulary/document-paths.ts';
import { buildHomePage, HOME_PAGE_CSP, HTML_MEDIA_TYPE } from './home-page.ts';
import { buildLlmsTxt, LLMS_TXT_MEDIA_TYPE } from './llms-txt.ts';
import { prefersHtml } from './negotiate.ts';
import { buildOpenApiDocument } from './openapi.ts';
import {
  type AssetLoader,
  FAVICON,
  IMMUTABLE_CACHE_CONTROL,
  PAGE_ASSETS,
} from '../../vocabulary/page-assets.ts';
import { documentHandler } from './representation.ts';
import { buildRobotsTxt, ROBOTS_MEDIA_TYPE } from './robots.ts';
import { buildServerCard, SERVER_CARD_CACHE_CONTROL, SERVER_CARD_CORS_HEADERS } from './server-card.ts';
import { buildServerJson } from './server-json.ts';
import { buildServiceIndex } from './service-index.ts';
import { buildSitemap, SITEMAP_MEDIA_TYPE } from './sitemap.ts';
import { buildX402Manifest } from './x402-manifest.ts';

/**
 * Paths that answer CORS themselves with the server card's exact policy (SEP-2127); the app-wide
 * CORS preflight and read headers leave them alone.
 */
export const CARD_CORS_PATHS: readonly string[] = [DOCUMENT_PATHS.serverCard, DOCUMENT_PATHS.aiCatalog];

/** Discovery documents change only with a deploy: caches may keep them five minutes, then revalidate. */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300';
const DAY_CACHE_CONTROL = 'public, max-age=86400';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Liveness: the same answer every time. */
const HEALTHY = JSON.stringify({ status: 'ok' });
const HEALTHY_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** The discovery routes for `config.publicBaseUrl`, to mount at `/`; `loadAsset` reads the page's files. */
export function discoveryRoutes(config: Config, loadAsset: AssetLoader): Hono {
  const base = config.publicBaseUrl;
  const json = (value: unknown) => JSON.stringify(value);
  const catalogLink = apiCatalogLinkHeader(base);
  const documentAt = (body: string, contentType: string, headers?: Record<string, string>) =>
    documentHandler({ body, contentType, cacheControl: DOCUMENT_CACHE_CONTROL, headers });
  const cardAt = (body: string, contentType: string) =>
    documentHandler({
      body,
      contentType,
      cacheControl: SERVER_CARD_CACHE_CONTROL,
      headers: SERVER_CARD_CORS_HEADERS,
    });

  // `/` answers two representations, so caches must key on Accept as well.
  const negotiated = { vary: 'Accept', link: catalogLink };
  const indexJson = documentAt(json(buildServiceIndex(base)), JSON_TYPE, negotiated);
  const indexHtml = documentAt(buildHomePage(base), HTML_MEDIA_TYPE, {
    ...negotiated,
    'content-security-policy': HOME_PAGE_CSP,
  });

  const routes = new Hono();
  for (const path of CARD_CORS_PATHS) {
    // The CORS preflight for the card answers with the same exact headers.
    routes.options(path, (c) => reply(c, null, 204, SERVER_CARD_CORS_HEADERS));
  }
  routes.get(DOCUMENT_PATHS.index, (c) => (prefersHtml(c.req.header('accept')) ? indexHtml : indexJson)(c));
  routes.get(DOCUMENT_PATHS.health, (c) => reply(c, HEALTHY, 200, HEALTHY_HEADERS));
  routes.get(DOCUMENT_PATHS.openapi, documentAt(json(buildOpenApiDocument(base)), JSON_TYPE));
  routes.get(DOCUMENT_PATHS.x402, documentAt(json(buildX402Manifest(base)), JSON_TYPE));
  routes.get(DOCUMENT_PATHS.llmsTxt, documentAt(buildLlmsTxt(base), LLMS_TXT_MEDIA_TYPE));
  // RFC 9727 §4.1: HEAD must carry the same Link header; Hono answers HEAD from this GET with no body.
  routes.get(
    DOCUMENT_PATHS.apiCatalog,
    documentAt(json(buildApiCatalog(base)), API_CATALOG_MEDIA_TYPE, { link: catalogLink }),
  );
  routes.get(DOCUMENT_PATHS.sitemap, documentAt(buildSitemap(base), SITEMAP_MEDIA_TYPE));
  routes.get(DOCUMENT_PATHS.serverCard, cardAt(json(buildServerCard(base)), SERVER_CARD_MEDIA_TYPE));
  routes.get(DOCUMENT_PATHS.aiCatalog, cardAt(json(buildAiCatalog(base)), AI_CATALOG_MEDIA_TYPE));
  routes.get(DOCUMENT_PATHS.serverJson, documentAt(json(buildServerJson(base)), JSON_TYPE));
  routes.get('/robots.txt', documentAt(buildRobotsTxt(base), ROBOTS_MEDIA_TYPE));

  const icon = documentHandler({
    body: () => loadAsset(FAVICON.file),
    contentType: FAVICON.contentType,
    cacheControl: DAY_CACHE_CONTROL,
  });
  for (const path of FAVICON.paths) routes.get(path, icon);
  for (const asset of Object.values(PAGE_ASSETS)) {
    routes.get(
      asset.path,
      documentHandler({
        body: () => loadAsset(asset.file),
        contentType: asset.contentType,
        cacheControl: IMMUTABLE_CACHE_CONTROL,
      }),
    );
  }
  return routes;
}
