import { describe, expect, it } from 'vitest';
import { paidOperations } from '../../../../src/catalog.ts';
import { escapeXml } from '../../../../src/http/discovery/sitemap.ts';
import { createDiscoveryApp, isPublicUrl, type Json, PUBLIC_BASE_URL } from './discovery-app.ts';

describe('GET /', () => {
  it('is a JSON index linking every document, with the api-catalog Link header', async () => {
    const response = await createDiscoveryApp().request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('link')).toBe(
      `<${PUBLIC_BASE_URL}/.well-known/api-catalog>; rel="api-catalog"`,
    );
    const index = (await response.json()) as Json;
    expect(index.name).toBe('Website Checks');
    expect(Object.values(index.links).every((url) => isPublicUrl(url as string))).toBe(true);
    expect(index.links).toMatchObject({
      openapi: `${PUBLIC_BASE_URL}/openapi.json`,
      llms_txt: `${PUBLIC_BASE_URL}/llms.txt`,
      x402: `${PUBLIC_BASE_URL}/.well-known/x402`,
      api_catalog: `${PUBLIC_BASE_URL}/.well-known/api-catalog`,
      sitemap: `${PUBLIC_BASE_URL}/sitemap.xml`,
      mcp: `${PUBLIC_BASE_URL}/mcp`,
      server_card: `${PUBLIC_BASE_URL}/mcp/server-card`,
      ai_catalog: `${PUBLIC_BASE_URL}/.well-known/ai-catalog.json`,
      health: `${PUBLIC_BASE_URL}/health`,
    });
    expect(index.operations.map((operation: Json) => [operation.url, operation.price_usd])).toEqual(
      paidOperations.map((operation) => [`${PUBLIC_BASE_URL}${operation.route}`, operation.priceUsd]),
    );
  });
});

describe('GET /health', () => {
  it('answers 200 {"status":"ok"}', async () => {
    const response = await createDiscoveryApp().request('/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /sitemap.xml', () => {
  it('is a sitemaps.org urlset of absolute URLs: the documents and the free route', async () => {
    const response = await createDiscoveryApp().request('/sitemap.xml');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await response.text();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(xml.trimEnd().endsWith('</urlset>')).toBe(true);
    const locs = [...xml.matchAll(/<url><loc>([^<]*)<\/loc><\/url>/g)].map((match) => match[1] ?? '');
    expect(xml.match(/<url>/g)).toHaveLength(locs.length);
    expect(locs.every(isPublicUrl)).toBe(true);
    // No raw ampersand or angle bracket survives inside a <loc> (XML 1.0 §2.4).
    expect(locs.every((loc) => !/&(?!amp;|lt;|gt;|quot;|apos;)/.test(loc))).toBe(true);
    for (const path of ['/openapi.json', '/llms.txt', '/mcp/server-card', '/.well-known/api-catalog']) {
      expect(locs).toContain(`${PUBLIC_BASE_URL}${path}`);
    }
    expect(locs).toContain(`${PUBLIC_BASE_URL}/v1/validate?domain=example.com`);
    expect(locs.some((loc) => loc.includes('/v1/cert'))).toBe(false);
  });

  it('escapes the five XML special characters', () => {
    expect(escapeXml(`a&b<c>d"e'f`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
  });
});
