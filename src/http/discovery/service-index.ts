/** `GET /`: a short JSON index of the service: what it is, where every document is, what each call costs. */
import { freeOperations, paidOperations } from '../../catalog.ts';
import {
  absoluteUrl,
  DOCUMENT_PATHS,
  SERVICE_SHORT_DESCRIPTION,
  SERVICE_TITLE,
  SERVICE_VERSION,
} from '../../vocabulary/document-paths.ts';

export interface ServiceIndex {
  name: string;
  version: string;
  description: string;
  /** Document name in snake_case (`llms_txt`, `server_card`, …) → absolute URL. */
  links: Record<string, string>;
  operations: { id: string; method: 'GET'; url: string; mcp_tool: string; price_usd: string }[];
  free_operations: { id: string; url: string | null; mcp_tool: string }[];
}

/** `llmsTxt` → `llms_txt`: the contract spells JSON fields in snake_case. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The index for a service published at `publicBaseUrl`; prices are decimal USD. */
export function buildServiceIndex(publicBaseUrl: string): ServiceIndex {
  const url = (path: `/${string}`) => absoluteUrl(publicBaseUrl, path);
  const { index: _index, ...documents } = DOCUMENT_PATHS;
  return {
    name: SERVICE_TITLE,
    version: SERVICE_VERSION,
    description: SERVICE_SHORT_DESCRIPTION,
    links: Object.fromEntries(Object.entries(documents).map(([key, path]) => [snakeCase(key), url(path)])),
    operations: paidOperations.map((operation) => ({
      id: operation.id,
      method: operation.method,
      url: url(operation.route),
      mcp_tool: operation.tool,
      price_usd: operation.priceUsd,
    })),
    free_operations: freeOperations.map((operation) => ({
      id: operation.id,
      url: operation.route ? url(operation.route) : null,
      mcp_tool: operation.tool,
    })),
  };
}
