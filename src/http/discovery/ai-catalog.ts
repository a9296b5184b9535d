/**
 * `/.well-known/ai-catalog.json` (Agent-Card AI Catalog 1.0): entries for the MCP server card and
 * the OpenAPI description. Each entry carries both `type` (newer revision) and `mediaType` (April
 * 2026 revision); readers ignore the field they do not know.
 */
import { LEGACY_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION } from '../../vocabulary/mcp-protocol-versions.ts';
import {
  absoluteUrl,
  DOCUMENT_PATHS,
  OPENAPI_MEDIA_TYPE,
  publicHostname,
  SERVER_CARD_MEDIA_TYPE,
  SERVICE_SHORT_DESCRIPTION,
  SERVICE_TITLE,
  SERVICE_VERSION,
} from '../../vocabulary/document-paths.ts';

export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';

export interface AiCatalogEntry {
  identifier: string;
  type: string;
  mediaType: string;
  url: string;
  displayName?: string;
  description?: string;
  version?: string;
}

export interface AiCatalog {
  specVersion: '1.0';
  host: { displayName: string; identifier: string; documentationUrl: string };
  entries: AiCatalogEntry[];
}

/** The MCP entry's description: both protocol eras `/mcp` serves (the card lists every revision). */
export const MCP_ENTRY_DESCRIPTION = `MCP server over Streamable HTTP: protocol ${MODERN_PROTOCOL_VERSION} (stateless) and ${LEGACY_PROTOCOL_VERSION} (initialize).`;

/** The AI catalog for a service published at `publicBaseUrl`. */
export function buildAiCatalog(publicBaseUrl: string): AiCatalog {
  const host = publicHostname(publicBaseUrl);
  // Identifiers are urn:air:{publisher-domain}:{namespace}:{name}.
  const urn = (namespace: string) => `urn:air:${host}:${namespace}:website-checks`;
  return {
    specVersion: '1.0',
    host: {
      displayName: SERVICE_TITLE,
      identifier: host,
      documentationUrl: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.llmsTxt),
    },
    entries: [
      // No displayName: the card names itself (`title`), as the newer revision asks.
      {
        identifier: urn('mcp'),
        type: SERVER_CARD_MEDIA_TYPE,
        mediaType: SERVER_CARD_MEDIA_TYPE,
        url: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.serverCard),
        description: MCP_ENTRY_DESCRIPTION,
      },
      {
        identifier: urn('openapi'),
        type: OPENAPI_MEDIA_TYPE,
        mediaType: OPENAPI_MEDIA_TYPE,
        url: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.openapi),
        displayName: `${SERVICE_TITLE} HTTP API`,
        description: SERVICE_SHORT_DESCRIPTION,
        version: SERVICE_VERSION,
      },
    ],
  };
}
