import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { applyHttpHygiene, type RequestLogVariables } from '../../../../src/http/hygiene/index.ts';
import { createLogger } from '../../../../src/logger.ts';
import { createDiscoveryApp } from '../discovery/discovery-app.ts';

/** A pino destination that keeps each written line. */
function lineSink(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

function requestLines(lines: string[]): Record<string, unknown>[] {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === 'request');
}

describe('structured request log', () => {
  it('writes exactly one JSON line per request with method, path, status, ms and the request id', async () => {
    const sink = lineSink();
    const app = createDiscoveryApp(createLogger('info', sink));
    const response = await app.request('/llms.txt?x=1');
    const lines = requestLines(sink.lines);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      method: 'GET',
      path: '/llms.txt',
      status: 200,
      request_id: response.headers.get('x-request-id'),
    });
    expect(typeof lines[0]?.ms).toBe('number');
    expect(lines[0]?.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('logs the final status of a failed request (500) and of a 405', async () => {
    const sink = lineSink();
    const app = createDiscoveryApp(createLogger('info', sink));
    await app.request('/v1/expiry?domain=example.com');
    await app.request('/v1/expiry', { method: 'POST' });
    expect(requestLines(sink.lines).map((line) => line.status)).toEqual([500, 405]);
    expect(sink.lines.some((line) => JSON.parse(line).msg === 'unhandled error')).toBe(true);
  });

  it('measures ms with the injected clock', async () => {
    const sink = lineSink();
    const app = new Hono();
    const ticks = [1000, 1042.5];
    applyHttpHygiene(app, { logger: createLogger('info', sink), now: () => ticks.shift() ?? Number.NaN });
    app.get('/x', (c) => c.text('x'));
    await app.request('/x');
    expect(requestLines(sink.lines)[0]?.ms).toBe(42.5);
  });

  it('carries the matched route and the payment outcome and transaction a paid route reported', async () => {
    const sink = lineSink();
    const app = new Hono<{ Variables: RequestLogVariables }>();
    applyHttpHygiene(app, { logger: createLogger('info', sink) });
    app.get('/v1/:check', (c) => {
      c.set('payment', { outcome: 'delivered', tx: `0x${'ab'.repeat(32)}` });
      return c.json({});
    });
    await app.request('/v1/cert');
    await app.request('/nowhere');
    const [paid, missing] = requestLines(sink.lines);
    expect(paid).toMatchObject({
      route: '/v1/:check',
      path: '/v1/cert',
      payment: 'delivered',
      tx: `0x${'ab'.repeat(32)}`,
    });
    expect(missing).toMatchObject({ path: '/nowhere', status: 404 });
    expect(missing).not.toHaveProperty('route');
    expect(missing).not.toHaveProperty('payment');
  });

  it('writes nothing at level silent', async () => {
    const sink = lineSink();
    await createDiscoveryApp(createLogger('silent', sink)).request('/health');
    expect(sink.lines).toEqual([]);
  });
});
