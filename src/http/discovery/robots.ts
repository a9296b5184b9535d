/** `/robots.txt` (RFC 9309): crawlers may read the documents, not the paid routes; names the sitemap. */
import { paidOperations } from '../../catalog.ts';
import { absoluteUrl, DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';

export const ROBOTS_MEDIA_TYPE = 'text/plain; charset=utf-8';

export function buildRobotsTxt(publicBaseUrl: string): string {
  const prefix = new URL(publicBaseUrl).pathname.replace(/\/$/, '');
  return [
    'User-agent: *',
    // A paid route answers a crawler with 402 and /mcp takes only POST: nothing to index there.
    ...paidOperations.map((operation) => `Disallow: ${prefix}${operation.route}`),
    `Disallow: ${prefix}${DOCUMENT_PATHS.mcp}$`,
    `Allow: ${prefix}/`,
    '',
    `Sitemap: ${absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.sitemap)}`,
    '',
  ].join('\n');
}
