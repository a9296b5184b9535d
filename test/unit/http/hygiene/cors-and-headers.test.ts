import { describe, expect, it } from 'vitest';
import { createDiscoveryApp } from '../discovery/discovery-app.ts';

const ORIGIN = 'https://agent.example';

function listed(header: string | null): string[] {
  return (header ?? '').split(',').map((name) => name.trim().toLowerCase());
}

describe('CORS for browser agents', () => {
  it('answers a preflight for a paid route from any origin, allowing the x402 and MCP request headers', async () => {
    const response = await createDiscoveryApp().request('/v1/cert', {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'payment-signature',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(listed(response.headers.get('access-control-allow-methods'))).toEqual(['get', 'post', 'options']);
    expect(listed(response.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['payment-signature', 'content-type', 'mcp-protocol-version']),
    );
  });

  it('exposes PAYMENT-REQUIRED and PAYMENT-RESPONSE on ordinary responses', async () => {
    const response = await createDiscoveryApp().request('/openapi.json', { headers: { origin: ORIGIN } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(listed(response.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining(['payment-required', 'payment-response']),
    );
  });

  it('also covers error responses, so a browser can read the problem body', async () => {
    const response = await createDiscoveryApp().request('/v1/cert', { headers: { origin: ORIGIN } });
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('security headers', () => {
  it('sets nosniff and the hardening headers without a CSP that would matter for JSON', async () => {
    const response = await createDiscoveryApp().request('/openapi.json');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    // Readable by agents on other origins; CORS, not CORP, decides.
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(response.headers.get('content-security-policy')).toBeNull();
  });

  it('gives every response a request id, echoing a well-formed incoming one', async () => {
    const app = createDiscoveryApp();
    const generated = await app.request('/health');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await app.request('/health', { headers: { 'x-request-id': 'agent-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('agent-42');
  });
});
