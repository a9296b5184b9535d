import { describe, expect, it } from 'vitest';
import { createDiscoveryApp } from '../discovery/discovery-app.ts';

async function problem(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return (await response.json()) as Record<string, unknown>;
}

describe('error responses are problem JSON', () => {
  it('405 with an Allow header for a known path with the wrong method', async () => {
    const app = createDiscoveryApp();
    const post = await app.request('/v1/cert?domain=example.com', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await problem(post)).toMatchObject({
      type: 'urn:website-checks:problem:method_not_allowed',
      status: 405,
      code: 'method_not_allowed',
    });
    const del = await app.request('/openapi.json', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    const put = await app.request('/mcp/server-card', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD']));
  });

  it('404 for an unknown path', async () => {
    const response = await createDiscoveryApp().request('/v2/nothing');
    expect(response.status).toBe(404);
    expect(response.headers.get('allow')).toBeNull();
    expect(await problem(response)).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('500 for a thrown exception, with no stack trace or error message in the body', async () => {
    // The throwing runners make any paid route throw once the domain is valid.
    const response = await createDiscoveryApp().request('/v1/dns?domain=example.com');
    expect(response.status).toBe(500);
    const body = await problem(response);
    expect(body).toMatchObject({
      status: 500,
      code: 'internal_error',
      type: 'urn:website-checks:problem:internal_error',
    });
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/runner|discovery route|\.ts:\d+|\n\s+at /);
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
  });
});
