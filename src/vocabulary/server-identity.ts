/**
 * Who this MCP server says it is: the name, version and title that the server card and the registry
 * entry publish (src/http/discovery/) and the MCP server answers as `serverInfo` (src/mcp/server.ts),
 * from one function so the three cannot drift.
 */
import { isIP } from 'node:net';
import { publicHostname, SERVICE_TITLE, SERVICE_VERSION } from './document-paths.ts';

export interface ServerIdentity {
  /** Reverse-DNS name with one `/`, e.g. `com.example.checks/website-checks`. */
  name: string;
  /** The package version, e.g. `1.2.0`. */
  version: string;
  title: string;
}

/**
 * `checks.example.com` → `com.example.checks`. An IP address has no reverse-DNS form (reversing
 * `127.0.0.1` names nothing, and IPv6 brackets break the card's name pattern): it becomes `local`.
 */
function reverseDns(hostname: string): string {
  if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return 'local';
  return hostname.split('.').reverse().join('.');
}

/** Name, version and title shared by the card and the MCP server's `serverInfo`. */
export function serverIdentity(publicBaseUrl: string): ServerIdentity {
  return {
    name: `${reverseDns(publicHostname(publicBaseUrl))}/website-checks`,
    version: SERVICE_VERSION,
    title: SERVICE_TITLE,
  };
}
