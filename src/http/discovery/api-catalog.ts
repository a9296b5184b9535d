/**
 * `/.well-known/api-catalog` (RFC 9727): a Linkset (RFC 9264 §4.2) listing every API endpoint as an
 * `item` of the catalog, then the API's description, documentation and status, and the MCP endpoint.
 */
import { freeOperations, paidOperations } from '../../catalog.ts';
import {
  absoluteUrl,
  DOCUMENT_PATHS,
  OPENAPI_MEDIA_TYPE,
  SERVER_CARD_MEDIA_TYPE,
} from '../../vocabulary/document-paths.ts';

/** RFC 9727 §4.1: the Linkset media type with the RFC's profile URI. */
export const API_CATALOG_MEDIA_TYPE =
  'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

export interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
}

/** RFC 9264 §4.2.2: a link context; every relation's value is an array, even with one target. */
export type LinkContext = { anchor: string } & { [relation: string]: LinkTarget[] | string };

export interface Linkset {
  linkset: LinkContext[];
}

/** The `Link` header that points at the catalog (RFC 9727 §4.2), for the catalog and `GET /`. */
export function apiCatalogLinkHeader(publicBaseUrl: string): string {
  return `<${absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.apiCatalog)}>; rel="api-catalog"`;
}

/** The catalog for a service published at `publicBaseUrl`. */
export function buildApiCatalog(publicBaseUrl: string): Linkset {
  const url = (path: `/${string}`) => absoluteUrl(publicBaseUrl, path);
  const endpoints: LinkTarget[] = [];
  for (const operation of [...paidOperations, ...freeOperations]) {
    if (operation.route)
      endpoints.push({ href: url(operation.route), type: 'application/json', title: operation.title });
  }
  const documentation = { href: url(DOCUMENT_PATHS.llmsTxt), type: 'text/markdown', title: 'llms.txt guide' };
  return {
    linkset: [
      // The "bookmarks" style of RFC 9727 Appendix A: the catalog itself anchors its items (RFC 6573).
      { anchor: url(DOCUMENT_PATHS.apiCatalog), item: endpoints },
      {
        anchor: url(DOCUMENT_PATHS.index),
        'service-desc': [
          { href: url(DOCUMENT_PATHS.openapi), type: OPENAPI_MEDIA_TYPE, title: 'OpenAPI 3.1' },
        ],
        'service-doc': [documentation],
        'service-meta': [
          { href: url(DOCUMENT_PATHS.x402), type: 'application/json', title: 'x402 manifest' },
        ],
        status: [{ href: url(DOCUMENT_PATHS.health), type: 'application/json' }],
      },
      {
        anchor: url(DOCUMENT_PATHS.mcp),
        'service-desc': [
          { href: url(DOCUMENT_PATHS.serverCard), type: SERVER_CARD_MEDIA_TYPE, title: 'MCP server card' },
        ],
        'service-doc': [documentation],
      },
    ],
  };
}
