/**
 * `/mcp/server-card`: the MCP Server Card (SEP-2127, experimental-ext-server-card `schema.ts`).
 * The protocol versions are the ones `/mcp` serves (src/vocabulary/mcp-protocol-versions.ts), both
 * eras; the name, version and title are the MCP server's own (src/vocabulary/server-identity.ts).
 */
import {
  DEFAULT_PRICE_PER_30_DAYS_USD,
  isPaidWatchOperation,
  paidOperations,
  watchOperations,
} from '../../catalog.ts';
import { SERVED_PROTOCOL_VERSIONS } from '../../vocabulary/mcp-protocol-versions.ts';
import { absoluteUrl, DOCUMENT_PATHS, SERVICE_SHORT_DESCRIPTION } from '../../vocabulary/document-paths.ts';
import { type ServerIdentity, serverIdentity } from '../../vocabulary/server-identity.ts';

export const SERVER_CARD_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** SEP-2127 "MUST" CORS headers, exactly as the extension lists them (also sent on GET and 304). */
export const SERVER_CARD_CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Expose-Headers': 'ETag',
} as const;
/** SEP-2127 "SHOULD" caching: one hour. */
export const SERVER_CARD_CACHE_CONTROL = 'public, max-age=3600';

export interface ServerCard extends ServerIdentity {
  $schema: typeof SERVER_CARD_SCHEMA_URL;
  description: string;
  websiteUrl: string;
  remotes: { type: 'streamable-http'; url: string; supportedProtocolVersions: string[] }[];
  _meta: Record<string, unknown>;
}

/** The server card for a service published at `publicBaseUrl`. */
export function buildServerCard(publicBaseUrl: string): ServerCard {
  const identity = serverIdentity(publicBaseUrl);
  const vendor = identity.name.split('/')[0];
  return {
    $schema: SERVER_CARD_SCHEMA_URL,
    ...identity,
    description: SERVICE_SHORT_DESCRIPTION,
    websiteUrl: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.index),
    remotes: [
      {
        type: 'streamable-http',
        url: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.mcp),
        supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS],
      },
    ],
    // Vendor data under a reverse-DNS key (SEP-2127 `_meta`); prices are decimal USD.
    _meta: {
      [`${vendor}/pricing`]: {
        currency: 'USD',
        protocol: 'x402',
        tools: Object.fromEntries(paidOperations.map((operation) => [operation.tool, operation.priceUsd])),
        // A watch's price is per 30 days of watching, pro rata of its `days`; managing it is free.
        perThirtyDays: Object.fromEntries(
          watchOperations.map((operation) => [
            operation.tool,
            isPaidWatchOperation(operation) ? DEFAULT_PRICE_PER_30_DAYS_USD : '0',
          ]),
        ),
      },
    },
  };
}
