/** `/sitemap.xml` (sitemaps.org protocol 0.9): the public documents and the free route, absolute URLs. */
import { EXAMPLE_DOMAIN, freeOperations } from '../../catalog.ts';
import { absoluteUrl, DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';

export const SITEMAP_MEDIA_TYPE = 'application/xml; charset=utf-8';

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Escapes text for an XML element or attribute (XML 1.0 §2.4; sitemaps.org requires entity-escaped URLs). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}

/** The URLs the sitemap lists, in order. */
export function sitemapUrls(publicBaseUrl: string): string[] {
  const documents = [
    DOCUMENT_PATHS.index,
    DOCUMENT_PATHS.llmsTxt,
    DOCUMENT_PATHS.openapi,
    DOCUMENT_PATHS.apiCatalog,
    DOCUMENT_PATHS.x402,
    DOCUMENT_PATHS.serverCard,
    DOCUMENT_PATHS.aiCatalog,
    DOCUMENT_PATHS.health,
  ].map((path) => absoluteUrl(publicBaseUrl, path));
  const freeRoutes = freeOperations.flatMap((operation) =>
    operation.route ? [`${absoluteUrl(publicBaseUrl, operation.route)}?domain=${EXAMPLE_DOMAIN}`] : [],
  );
  return [...documents, ...freeRoutes];
}

/** The sitemap XML for a service published at `publicBaseUrl`. */
export function buildSitemap(publicBaseUrl: string): string {
  const entries = sitemapUrls(publicBaseUrl).map((url) => `  <url><loc>${escapeXml(url)}</loc></url>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...entries,
    '</urlset>',
    '',
  ].join('\n');
}
