import { describe, expect, it } from 'vitest';
import { buildServerCard } from '../../../../src/http/discovery/server-card.ts';
import { serverIdentity } from '../../../../src/vocabulary/server-identity.ts';
import { createDiscoveryApp, type Json, PUBLIC_BASE_URL } from './discovery-app.ts';

const CARD_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

function corsHeaders(response: Response): Record<string, string | null> {
  return Object.fromEntries(Object.keys(CARD_CORS).map((name) => [name, response.headers.get(name)]));
}

describe('GET /mcp/server-card (SEP-2127)', () => {
  it('is served with its media type, the exact CORS headers, one-hour caching and a strong ETag', async () => {
    const response = await createDiscoveryApp().request('/mcp/server-card', {
      headers: { accept: 'application/mcp-server-card+json', origin: 'https://agent.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json');
    expect(corsHeaders(response)).toEqual(CARD_CORS);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
  });

  it('has the required fields within the schema limits and a streamable-http remote at /mcp', async () => {
    const card = (await (await createDiscoveryApp().request('/mcp/server-card')).json()) as Json;
    expect(card.$schema).toBe('https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
    expect(card.name).toBe('com.example.checks/website-checks');
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(card.version).toBe('1.2.0');
    expect(card.description.length).toBeGreaterThan(0);
    expect(card.description.length).toBeLessThanOrEqual(100);
    expect(card.remotes).toEqual([
      {
        type: 'streamable-http',
        url: `${PUBLIC_BASE_URL}/mcp`,
        // Both eras: the stateless 2026 revision and every 2025-era one `initialize` negotiates.
        supportedProtocolVersions: [
          '2026-07-28',
          '2025-11-25',
          '2025-06-18',
          '2025-03-26',
          '2024-11-05',
          '2024-10-07',
        ],
      },
    ]);
    // Cards do not list tools (clients use tools/list).
    expect(card.tools).toBeUndefined();
  });

  it('answers If-None-Match with the current ETag by 304 with an empty body, keeping CORS', async () => {
    const app = createDiscoveryApp();
    const etag = (await app.request('/mcp/server-card')).headers.get('etag') ?? '';
    const revalidated = await app.request('/mcp/server-card', { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(corsHeaders(revalidated)).toEqual(CARD_CORS);
    const stale = await app.request('/mcp/server-card', { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
  });

  it('answers the CORS preflight with the same exact headers, not the app-wide policy', async () => {
    const preflight = await createDiscoveryApp().request('/mcp/server-card', {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(corsHeaders(preflight)).toEqual(CARD_CORS);
  });

  it('exports the builder and the identity the MCP server reuses', () => {
    expect(serverIdentity('https://checks.example.com')).toEqual({
      name: 'com.example.checks/website-checks',
      version: '1.2.0',
      title: 'Website Checks',
    });
    expect(buildServerCard('http://localhost:8080').name).toBe('localhost/website-checks');
  });

  it.each(['http://127.0.0.1:8080', 'http://[::1]:8080', 'https://203.0.113.7'])(
    'names a card served from the IP address %s with a valid name, not a reversed address',
    (base) => {
      const { name } = buildServerCard(base);
      expect(name).toBe('local/website-checks');
      expect(name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/); // SEP-2127 name pattern
    },
  );
});

describe('watches on the server card', () => {
  it('prices watch_domain and watch_extend per 30 days and the management tools at nothing', () => {
    const card = buildServerCard(PUBLIC_BASE_URL) as unknown as Json;
    const pricing = Object.entries(card._meta as Json).find(([key]) => key.endsWith('/pricing'))?.[1];
    expect(pricing.perThirtyDays).toEqual({
      watch_domain: '0.10',
      watch_status: '0',
      watch_cancel: '0',
      watch_extend: '0.10',
      watch_list: '0',
      watch_rotate_secret: '0',
      watch_rotate_token: '0',
    });
    expect(Object.keys(pricing.tools)).not.toContain('watch_domain');
  });
});
