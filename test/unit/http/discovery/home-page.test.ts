/**
 * `/` for people and agents, the page's own files, robots.txt, the icon, and how every discovery
 * document is cached and compressed.
 */
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { paidOperations, watchOperations } from '../../../../src/catalog.ts';
import { DOCUMENTATION } from '../../../../src/http/discovery/documentation.ts';
import { prefersHtml, preferredEncoding } from '../../../../src/http/discovery/negotiate.ts';
import { PAGE_ASSETS } from '../../../../src/vocabulary/page-assets.ts';
import { createDiscoveryApp, PUBLIC_BASE_URL } from './discovery-app.ts';

const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('content negotiation at /', () => {
  it.each([
    [BROWSER_ACCEPT, true],
    ['text/html', true],
    ['text/html;q=0.5, application/json', false],
    ['application/json', false],
    ['*/*', false],
    ['', false],
    [undefined, false],
    ['application/json;q=0.1, text/*', true],
    ['text/html;q=0', false],
  ])('Accept %j prefers the HTML page: %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });

  it('gives a browser the page, with its CSP, and an agent the JSON index; both vary on Accept', async () => {
    const app = createDiscoveryApp();
    const page = await app.request('/', { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(page.headers.get('link')).toContain('rel="api-catalog"');
    const html = await page.text();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    for (const operation of paidOperations) {
      expect(html).toContain(`<code>GET ${operation.route}</code>`);
      expect(html).toContain(`$${operation.priceUsd}`);
    }
    // The client is not on the registry: the page runs it from a clone, and never through npx.
    expect(html).toContain('npm run -s cli -- site-health');
    expect(html).not.toMatch(/\bnpx\b/);
    expect(html).not.toMatch(/(src|href)="https?:\/\/(?!x402\.org)/); // no CDN: every file is local
    for (const asset of Object.values(PAGE_ASSETS)) expect(html).toContain(`"${asset.path}"`);
    for (const { path } of DOCUMENTATION) expect(html).toContain(`<li><code>${path}</code>: `);

    const agent = await app.request('/', { headers: { accept: 'application/json' } });
    expect(agent.headers.get('content-type')).toMatch(/^application\/json/);
    expect(agent.headers.get('vary')).toMatch(/^Accept\b/);
    expect(((await agent.json()) as { name: string }).name).toBe('Website Checks');
  });

  it('keeps links under the path prefix of the public base URL', async () => {
    const { buildHomePage } = await import('../../../../src/http/discovery/home-page.ts');
    const html = buildHomePage('https://example.net/checks');
    expect(html).toContain('data-openapi="/checks/openapi.json"');
    expect(html).toContain(`src="/checks${PAGE_ASSETS.swaggerScript.path}"`);
  });
});

describe('the page files, icon and robots.txt', () => {
  it('serves every page asset from the installed packages with a one-year immutable cache', async () => {
    const app = createDiscoveryApp();
    for (const asset of Object.values(PAGE_ASSETS)) {
      const response = await app.request(asset.path);
      expect(response.status, asset.path).toBe(200);
      expect(response.headers.get('content-type')).toBe(asset.contentType);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it.each(['/favicon.ico', '/favicon.svg'])('serves the icon at %s', async (path) => {
    const response = await createDiscoveryApp().request(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(await response.text()).toMatch(/^<svg /);
  });

  it('robots.txt names the sitemap and keeps crawlers off the paid routes and /mcp', async () => {
    const response = await createDiscoveryApp().request('/robots.txt');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const lines = (await response.text()).split('\n');
    expect(lines).toContain(`Sitemap: ${PUBLIC_BASE_URL}/sitemap.xml`);
    for (const operation of paidOperations) expect(lines).toContain(`Disallow: ${operation.route}`);
    expect(lines).toContain('Disallow: /mcp$');
    expect(lines).not.toContain('Disallow: /v1/validate');
  });
});

describe('caching and compression of discovery documents', () => {
  const DOCUMENTS = [
    '/',
    '/openapi.json',
    '/llms.txt',
    '/.well-known/x402',
    '/.well-known/api-catalog',
    '/sitemap.xml',
    '/robots.txt',
  ];

  it.each(DOCUMENTS)('%s has Cache-Control and a strong ETag that revalidates to 304', async (path) => {
    const app = createDiscoveryApp();
    const first = await app.request(path);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    const again = await app.request(path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
  });

  it('sends /openapi.json as br or gzip when accepted, each with its own ETag', async () => {
    const app = createDiscoveryApp();
    const plain = await app.request('/openapi.json');
    const original = Buffer.from(await plain.arrayBuffer());
    expect(original.length).toBeGreaterThan(20_000);
    const br = await app.request('/openapi.json', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    const brBody = Buffer.from(await br.arrayBuffer());
    expect(brBody.length).toBeLessThan(original.length / 5);
    expect(brotliDecompressSync(brBody).equals(original)).toBe(true);
    const gz = await app.request('/openapi.json', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(original)).toBe(true);
    const etags = new Set([plain, br, gz].map((response) => response.headers.get('etag')));
    expect(etags.size).toBe(3);
    const revalidated = await app.request('/openapi.json', {
      headers: { 'accept-encoding': 'br', 'if-none-match': br.headers.get('etag') ?? '' },
    });
    expect(revalidated.status).toBe(304);
  });

  it('leaves small bodies and refusing clients uncompressed', async () => {
    const app = createDiscoveryApp();
    const small = await app.request('/robots.txt', { headers: { 'accept-encoding': 'br' } });
    expect(small.headers.get('content-encoding')).toBeNull();
    const refused = await app.request('/openapi.json', {
      headers: { 'accept-encoding': 'br;q=0, gzip;q=0' },
    });
    expect(refused.headers.get('content-encoding')).toBeNull();
    expect(preferredEncoding('identity')).toBe('identity');
    expect(preferredEncoding('*')).toBe('br');
  });

  it('never lets /health be cached', async () => {
    const response = await createDiscoveryApp().request('/health');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('watches on the page', () => {
  it('has a price row per watch operation: the POST at its price per 30 days, the management calls free', async () => {
    const page = await createDiscoveryApp().request('/', { headers: { accept: BROWSER_ACCEPT } });
    const rows = (await page.text()).split('\n').filter((line) => line.startsWith('<tr><td class="route">'));
    for (const operation of watchOperations) {
      const path = operation.route.replace(':watch_id', '{watch_id}');
      const row = rows.find((line) => line.includes(`<code>${operation.method} ${path}</code>`));
      expect(row, operation.id).toContain(`<code>${operation.tool}</code>`);
      expect(row).toContain(operation.method === 'POST' ? '$0.10 per 30 days, pro rata' : '>free<');
    }
  });
});
