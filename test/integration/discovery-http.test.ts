/**
 * The discovery documents over a real loopback socket (@hono/node-server on 127.0.0.1, port 0), read
 * the way outside clients read them, including @agentcash/discovery's OpenAPI-first discovery.
 */
import {
  checkEndpointSchema,
  discoverOriginSchema,
  getOpenAPI,
  getWarningsForOpenAPI,
} from '@agentcash/discovery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeOperations, paidOperations } from '../../src/catalog.ts';
import { type ServedApp, serveApp } from '../support/serve-app.ts';
import { createDiscoveryApp, isPublicUrl, type Json } from '../unit/http/discovery/discovery-app.ts';

let served: ServedApp;
let origin: string;

beforeAll(async () => {
  served = await serveApp(createDiscoveryApp());
  origin = served.origin;
});

afterAll(() => served.close());

const DOCUMENTS: [path: string, mediaType: RegExp][] = [
  ['/', /^application\/json/],
  ['/health', /^application\/json/],
  ['/openapi.json', /^application\/json/],
  ['/.well-known/x402', /^application\/json/],
  ['/llms.txt', /^text\/markdown; charset=utf-8$/],
  [
    '/.well-known/api-catalog',
    /^application\/linkset\+json; profile="https:\/\/www\.rfc-editor\.org\/info\/rfc9727"$/,
  ],
  ['/sitemap.xml', /^application\/xml/],
  ['/mcp/server-card', /^application\/mcp-server-card\+json$/],
  ['/.well-known/ai-catalog.json', /^application\/ai-catalog\+json$/],
];

describe('discovery documents over loopback HTTP', () => {
  it.each(DOCUMENTS)(
    'GET %s answers 200 with its media type and only absolute public URLs',
    async (path, mediaType) => {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(mediaType);
      const text = await response.text();
      expect(text.length).toBeGreaterThan(0);
      // Every URL a document names is under PUBLIC_BASE_URL, never the listener's address.
      const urls = text.match(/https?:\/\/[^\s"'<>)\\]+/g) ?? [];
      const own = urls.filter(
        (url) => !/(rfc-editor\.org|sitemaps\.org|modelcontextprotocol\.io|json-schema\.org)/.test(url),
      );
      expect(own.every(isPublicUrl), own.join(' ')).toBe(true);
      expect(text).not.toContain('127.0.0.1');
    },
  );

  it('HEAD /.well-known/api-catalog carries the Link header and no body', async () => {
    const response = await fetch(`${origin}/.well-known/api-catalog`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBe(
      '<https://checks.example.com/.well-known/api-catalog>; rel="api-catalog"',
    );
    expect(response.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
    expect(await response.text()).toBe('');
  });

  it('revalidates the server card with If-None-Match → 304 and an empty body', async () => {
    const first = await fetch(`${origin}/mcp/server-card`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const second = await fetch(`${origin}/mcp/server-card`, { headers: { 'if-none-match': etag } });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe('');
    expect(second.headers.get('access-control-allow-origin')).toBe('*');
    expect(second.headers.get('access-control-expose-headers')).toBe('ETag');
  });

  it('answers a CORS preflight for a paid route and a 405 problem for the wrong method', async () => {
    const preflight = await fetch(`${origin}/v1/site-health`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/PAYMENT-SIGNATURE/);
    const wrongMethod = await fetch(`${origin}/v1/site-health?domain=example.com`, { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect(((await wrongMethod.json()) as Json).code).toBe('method_not_allowed');
  });
});

describe('@agentcash/discovery against the loopback origin (offline)', () => {
  it('finds every operation from /openapi.json, with the catalog price for each paid one', async () => {
    const discovery = await discoverOriginSchema({ target: origin });
    expect(discovery.found).toBe(true);
    if (!discovery.found) return;
    expect(discovery.source).toBe('openapi');
    expect(discovery.guidanceAvailable).toBe(true);
    const byPath = new Map(discovery.endpoints.map((endpoint) => [endpoint.path, endpoint]));
    for (const operation of paidOperations) {
      expect(byPath.get(operation.route)).toMatchObject({
        method: 'GET',
        authMode: 'paid',
        price: `${operation.priceUsd} USD`,
        pricingMode: 'fixed',
        protocols: ['x402'],
        resourceKey: `${origin} GET ${operation.route}`,
      });
    }
    expect(byPath.get('/v1/cert')?.price).toBe('0.01 USD');
    expect(byPath.get('/v1/site-health')?.price).toBe('0.03 USD');
    for (const operation of freeOperations) {
      if (operation.route) expect(byPath.get(operation.route)?.authMode).toBe('unprotected');
    }
    expect(byPath.get('/health')?.authMode).toBe('unprotected');
  });

  it('reads the input and output schemas of a paid endpoint', async () => {
    const detail = await checkEndpointSchema({ url: `${origin}/v1/site-health`, probe: false });
    expect(detail.found).toBe(true);
    if (!detail.found) return;
    const advisory = detail.advisories.find((entry) => entry.method === 'GET') as Json;
    expect(advisory.estimatedPrice).toBe('0.03 USD');
    expect(advisory.inputSchema.parameters.map((parameter: Json) => parameter.name)).toContain('domain');
    expect(Object.keys(advisory.outputSchema.properties)).toEqual(
      expect.arrayContaining(['summary', 'cert', 'dns', 'expiry', 'lifetime_note']),
    );
  });

  it('reports no warning at all for the OpenAPI document', async () => {
    const source = await getOpenAPI(origin);
    expect(source.isOk()).toBe(true);
    expect(getWarningsForOpenAPI(source.isOk() ? source.value : null)).toEqual([]);
  });
});
