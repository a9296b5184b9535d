import { describe, expect, it } from 'vitest';
import { freeOperations, paidOperations } from '../../../../src/catalog.ts';
import { createDiscoveryApp, isPublicUrl, type Json, PUBLIC_BASE_URL } from './discovery-app.ts';

const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
const CATALOG_LINK = `<${PUBLIC_BASE_URL}/.well-known/api-catalog>; rel="api-catalog"`;

describe('GET /.well-known/x402', () => {
  it('lists the absolute URLs of exactly the paid routes with an example domain, version 1, with instructions', async () => {
    const response = await createDiscoveryApp().request('/.well-known/x402');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const manifest = (await response.json()) as Json;
    expect(manifest.version).toBe(1);
    expect(manifest.resources).toEqual(
      paidOperations.map((operation) => `${PUBLIC_BASE_URL}${operation.route}?domain=example.com`),
    );
    expect(manifest.resources.every(isPublicUrl)).toBe(true);
    expect(manifest.instructions).toMatch(/402/);
    expect(manifest.resources).not.toContain(`${PUBLIC_BASE_URL}/v1/validate`);
  });
});

describe('/.well-known/api-catalog (RFC 9727)', () => {
  it('GET answers a Linkset with the RFC 9727 profile and the api-catalog Link header', async () => {
    const response = await createDiscoveryApp().request('/.well-known/api-catalog');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(API_CATALOG_TYPE);
    expect(response.headers.get('link')).toBe(CATALOG_LINK);
    const catalog = (await response.json()) as Json;
    // RFC 9264 §4.2: `linkset` is the only member and an array of context objects.
    expect(Object.keys(catalog)).toEqual(['linkset']);
    expect(Array.isArray(catalog.linkset)).toBe(true);
    for (const context of catalog.linkset as Json[]) {
      expect(isPublicUrl(context.anchor)).toBe(true);
      for (const [relation, targets] of Object.entries(context)) {
        if (relation === 'anchor') continue;
        expect(Array.isArray(targets)).toBe(true);
        for (const target of targets as Json[]) expect(isPublicUrl(target.href)).toBe(true);
      }
    }
  });

  it('links every API endpoint as an item and the OpenAPI document as service-desc', async () => {
    const catalog = (await (await createDiscoveryApp().request('/.well-known/api-catalog')).json()) as Json;
    const items = catalog.linkset
      .flatMap((context: Json) => context.item ?? [])
      .map((target: Json) => target.href);
    const routes = [...paidOperations, ...freeOperations].flatMap((operation) =>
      operation.route ? [operation.route] : [],
    );
    expect(items).toEqual(routes.map((route) => `${PUBLIC_BASE_URL}${route}`));
    const descriptions = catalog.linkset.flatMap((context: Json) => context['service-desc'] ?? []);
    expect(descriptions.map((target: Json) => target.href)).toContain(`${PUBLIC_BASE_URL}/openapi.json`);
    expect(descriptions.map((target: Json) => target.href)).toContain(`${PUBLIC_BASE_URL}/mcp/server-card`);
    const status = catalog.linkset.flatMap((context: Json) => context.status ?? []);
    expect(status).toEqual([{ href: `${PUBLIC_BASE_URL}/health`, type: 'application/json' }]);
  });

  it('HEAD answers 200 with the same headers and an empty body', async () => {
    const app = createDiscoveryApp();
    const get = await app.request('/.well-known/api-catalog');
    const head = await app.request('/.well-known/api-catalog', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('link')).toBe(CATALOG_LINK);
    expect(await head.text()).toBe('');
  });
});

describe('GET /.well-known/ai-catalog.json', () => {
  it('is an AI Catalog 1.0 with the host and entries for the server card and the OpenAPI document', async () => {
    const response = await createDiscoveryApp().request('/.well-known/ai-catalog.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const catalog = (await response.json()) as Json;
    expect(catalog.specVersion).toBe('1.0');
    expect(catalog.host).toMatchObject({ displayName: 'Website Checks', identifier: 'checks.example.com' });
    expect(isPublicUrl(catalog.host.documentationUrl)).toBe(true);
    const card = catalog.entries.find((entry: Json) => entry.type === 'application/mcp-server-card+json');
    expect(card).toMatchObject({
      identifier: 'urn:air:checks.example.com:mcp:website-checks',
      mediaType: 'application/mcp-server-card+json',
      url: `${PUBLIC_BASE_URL}/mcp/server-card`,
    });
    // Both MCP eras the endpoint serves, named for readers that do not open the card.
    expect(card.description).toMatch(/2026-07-28.*2025-11-25/);
    const openapi = catalog.entries.find((entry: Json) => entry.url === `${PUBLIC_BASE_URL}/openapi.json`);
    expect(openapi.identifier).toBe('urn:air:checks.example.com:openapi:website-checks');
    for (const entry of catalog.entries as Json[]) {
      // Exactly one of url/data, and the identifier in the urn:air:{publisher}:{namespace}:{name} form.
      expect('data' in entry).toBe(false);
      expect(isPublicUrl(entry.url)).toBe(true);
      expect(entry.identifier).toMatch(/^urn:air:checks\.example\.com:[a-z]+:[a-z-]+$/);
      expect(entry.type).toBe(entry.mediaType);
    }
  });
});

describe('watches in /.well-known/x402', () => {
  it('names the paid POST in its instructions, not as a resource a GET could probe', async () => {
    const manifest = (await (await createDiscoveryApp().request('/.well-known/x402')).json()) as Json;
    expect(manifest.instructions).toContain(`POST ${PUBLIC_BASE_URL}/v1/watches`);
    expect(manifest.instructions).toContain('$0.10 per 30 days');
    expect(manifest.resources.some((url: string) => url.includes('/v1/watches'))).toBe(false);
  });
});
