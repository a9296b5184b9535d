import type { Context } from 'hono';
import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { applyHttpHygiene, DEFAULT_BODY_LIMIT_BYTES } from '../../../../src/http/hygiene/index.ts';
import { createDiscoveryApp } from '../discovery/discovery-app.ts';

const MCP_LIMIT_BYTES = 256 * 1024;

/** A tiny app behind the hygiene middleware that echoes the size of what it read. */
function echoApp(): Hono {
  const app = new Hono();
  applyHttpHygiene(app, {
    logger: pino({ level: 'silent' }),
    bodyLimit: { maxBytesByPath: { '/mcp': MCP_LIMIT_BYTES } },
  });
  const echo = async (c: Context) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength });
  app.post('/echo', echo);
  app.post('/mcp', echo);
  return app;
}

/** A body sent without Content-Length (chunked), so the limit must count bytes as they stream. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left === 0) return controller.close();
      const chunk = Math.min(left, 16 * 1024);
      left -= chunk;
      controller.enqueue(new Uint8Array(chunk));
    },
  });
}

describe('request body limit', () => {
  it('accepts exactly 64 KiB and refuses one byte more with a 413 problem', async () => {
    const app = echoApp();
    const ok = await app.request('/echo', { method: 'POST', body: new Uint8Array(DEFAULT_BODY_LIMIT_BYTES) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ bytes: 65536 });
    const tooLarge = await app.request('/echo', {
      method: 'POST',
      body: new Uint8Array(DEFAULT_BODY_LIMIT_BYTES + 1),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toBe('application/problem+json');
    expect(await tooLarge.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('counts a streamed body without Content-Length', async () => {
    const app = echoApp();
    const init = {
      method: 'POST',
      body: streamed(DEFAULT_BODY_LIMIT_BYTES + 1),
      duplex: 'half',
    } as RequestInit;
    const response = await app.request('/echo', init);
    expect(response.status).toBe(413);
  });

  it('applies a per-path limit to /mcp', async () => {
    const app = echoApp();
    const ok = await app.request('/mcp', { method: 'POST', body: new Uint8Array(100 * 1024) });
    expect(ok.status).toBe(200);
    const tooLarge = await app.request('/mcp', { method: 'POST', body: new Uint8Array(MCP_LIMIT_BYTES + 1) });
    expect(tooLarge.status).toBe(413);
  });

  it('is wired into the app', async () => {
    const response = await createDiscoveryApp().request('/openapi.json', {
      method: 'POST',
      body: new Uint8Array(DEFAULT_BODY_LIMIT_BYTES + 1),
    });
    expect(response.status).toBe(413);
  });
});
