/**
 * `/mcp/server.json`: this deployment's entry for the official MCP registry, in the registry's
 * `server.json` format (schema 2025-12-11, modelcontextprotocol/registry
 * `docs/reference/server-json`): a remote Streamable HTTP server, named and described as on the
 * server card so the two cannot drift. `mcp-publisher publish` takes this document as it is.
 */
import { absoluteUrl, DOCUMENT_PATHS, SERVICE_SHORT_DESCRIPTION } from '../../vocabulary/document-paths.ts';
import { serverIdentity } from '../../vocabulary/server-identity.ts';

export const SERVER_JSON_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export interface ServerJson {
  $schema: typeof SERVER_JSON_SCHEMA_URL;
  /** Reverse-DNS of the public host, which the registry verifies by DNS or HTTP for remote servers. */
  name: string;
  /** At most 100 characters (the registry's limit). */
  description: string;
  version: string;
  websiteUrl: string;
  remotes: { type: 'streamable-http'; url: string }[];
}

/** The registry entry for a service published at `publicBaseUrl`. */
export function buildServerJson(publicBaseUrl: string): ServerJson {
  const { name, version } = serverIdentity(publicBaseUrl);
  return {
    $schema: SERVER_JSON_SCHEMA_URL,
    name,
    description: SERVICE_SHORT_DESCRIPTION,
    version,
    websiteUrl: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.index),
    remotes: [{ type: 'streamable-http', url: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.mcp) }],
  };
}
