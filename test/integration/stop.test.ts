/**
 * The graceful stop on a real Node server on loopback: idle and half-sent connections do not hold
 * it, a request in flight is answered, and a settlement under way is let finish past the grace.
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createLifecycle, type Lifecycle } from '../../src/lifecycle.ts';
import { stopGracefully } from '../../src/stop.ts';

let server: ServerType & { closeAllConnections?(): void };
let sockets: Socket[] = [];

async function start(handler: (request: Request) => Promise<Response>) {
  let active = 0;
  server = serve({
    fetch: async (request) => {
      active += 1;
      try {
        return await handler(request);
      } finally {
        active -= 1;
      }
    },
    hostname: '127.0.0.1',
    port: 0,
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, active: () => active };
}

function stop(lifecycle: Lifecycle, active: () => number, graceMs: number, hardStopMs = 10_000) {
  lifecycle.beginStop(graceMs);
  const started = performance.now();
  return stopGracefully({ server, lifecycle, activeRequests: active, hardStopMs }).then((clean) => ({
    clean,
    ms: performance.now() - started,
  }));
}

/** A client that sends half a request and never the rest. */
async function halfSent(url: string): Promise<Socket> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ');
  return socket;
}

afterEach(() => {
  for (const socket of sockets) socket.destroy();
  sockets = [];
  server?.closeAllConnections?.();
  server?.close();
});

describe('stopGracefully', () => {
  it('stops at once with an idle keep-alive connection and a half-sent request open', async () => {
    const lifecycle = createLifecycle();
    const { url, active } = await start(async () => new Response('ok'));
    const keepAlive = await fetch(url);
    await keepAlive.text();
    await halfSent(url);
    const { clean, ms } = await stop(lifecycle, active, 20_000);
    expect(clean).toBe(true);
    expect(ms).toBeLessThan(1_000);
  });

  it('answers a request in flight before it stops', async () => {
    const lifecycle = createLifecycle();
    const { url, active } = await start(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return new Response('finished');
    });
    const answer = fetch(url).then((res) => res.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = stop(lifecycle, active, 20_000);
    expect(await answer).toBe('finished');
    expect((await stopped).clean).toBe(true);
  });

  it('lets a settlement under way finish past the grace, and its answer reach the client', async () => {
    const lifecycle = createLifecycle();
    let release: () => void = () => {};
    const { url, active } = await start(async () => {
      const settled = lifecycle.beginSettlement();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      settled();
      return new Response('paid result');
    });
    const answer = fetch(url).then((res) => res.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = stop(lifecycle, active, 100);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(lifecycle.acceptingSettlements()).toBe(false);
    release();
    expect(await answer).toBe('paid result');
    const { clean, ms } = await stopped;
    expect(clean).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(600);
  });

  it('does not wait past the grace for a request that never reaches settlement', async () => {
    const lifecycle = createLifecycle();
    const { url, active } = await start(() => new Promise<Response>(() => {}));
    const answer = fetch(url).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { clean, ms } = await stop(lifecycle, active, 300);
    expect(clean).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(2_000);
    expect(await answer).toBeInstanceOf(Error);
  });

  it('cuts everything at the hard stop', async () => {
    const lifecycle = createLifecycle();
    const { url, active } = await start(async () => {
      lifecycle.beginSettlement();
      return new Promise<Response>(() => {});
    });
    void fetch(url).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { clean, ms } = await stop(lifecycle, active, 100, 500);
    expect(clean).toBe(false);
    expect(ms).toBeLessThan(1_500);
  });
});
