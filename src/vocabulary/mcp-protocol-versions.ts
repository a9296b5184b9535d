/**
 * The MCP protocol revisions `/mcp` serves: 2026-07-28 (stateless, `server/discover`) beside every
 * 2025-era revision the SDK serves through `initialize`. The server card and the AI catalog list
 * them from here, so the documents cannot contradict the endpoint. The SDK's own list is not
 * imported: the documents are built at start, and the SDK is loaded only on the first `/mcp`
 * request (src/http/mcp-routes.ts); test/unit/vocabulary/mcp-protocol-versions.test.ts holds the
 * two equal.
 */

/** MCP 2026-07-28: no `initialize`, a `_meta` envelope on every request (its changelog, SEP-2575). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The 2025-era revision a client gets through `initialize` when it asks for the newest. */
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

/** The 2025-era revisions, newest first: the SDK's `SUPPORTED_PROTOCOL_VERSIONS`. */
export const INITIALIZE_PROTOCOL_VERSIONS: readonly string[] = [
  LEGACY_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** Every revision served, newest first. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  MODERN_PROTOCOL_VERSION,
  ...INITIALIZE_PROTOCOL_VERSIONS,
];
