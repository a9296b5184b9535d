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

/** A server whose `entered` resolves when the first request reaches the handler. */
async function start(handler: (request: Request) => Promise<Response>) {
  let active = 0;
  let arrived: () => void = () => {};
  const entered = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  server = serve({
    fetch: async (request) => {
      active += 1;
      arrived();
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
  return { url, active: () => active, entered };
}

/**
 * `active` as the stop reads it, counting the stop's looks at the server: `looked(n)` resolves once
 * it has looked n more times, so a test knows the stop saw a state without guessing how long.
 */
function watched(active: () => number) {
  let looks = 0;
  const waiting: { at: number; resolve: () => void }[] = [];
  return {
    active: () => {
      looks += 1;
      for (const waiter of waiting.filter(({ at }) => looks >= at)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
      return active();
    },
    looked: (n: number) => new Promise<void>((resolve) => waiting.push({ at: looks + n, resolve })),
  };
}

/** A lifecycle on a clock the test moves, so the grace ends when the test says. */
function manualLifecycle() {
  let now = 0;
  return { lifecycle: createLifecycle(() => now), advance: (ms: number) => (now += ms) };
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
    // "At once" is the feature: one check of the server (100 ms), with a tenfold margin.
    expect(ms).toBeLessThan(1_000);
  });

  it('answers a request in flight before it stops', async () => {
    const lifecycle = createLifecycle();
    let finish: () => void = () => {};
    const { url, active, entered } = await start(async () => {
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return new Response('finished');
    });
    const answer = fetch(url).then((res) => res.text());
    await entered;
    const watch = watched(active);
    const stopped = stop(lifecycle, watch.active, 20_000);
    await watch.looked(3); // the stop has seen the request in flight, and waits
    finish();
    expect(await answer).toBe('finished');
    expect((await stopped).clean).toBe(true);
  });

  it('lets a settlement under way finish past the grace, and its answer reach the client', async () => {
    const { lifecycle, advance } = manualLifecycle();
    let release: () => void = () => {};
    const { url, active, entered } = await start(async () => {
      const settled = lifecycle.beginSettlement();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      settled();
      return new Response('paid result');
    });
    const answer = fetch(url).then((res) => res.text());
    await entered;
    const watch = watched(active);
    let done = false;
    const stopped = stop(lifecycle, watch.active, 100).then((result) => {
      done = true;
      return result;
    });
    advance(101);
    expect(lifecycle.acceptingSettlements()).toBe(false);
    // Seven checks with the grace over and the settlement under way: longer than the 500 ms a stop
    // gives a finished response to be written, so a stop that ignored the settlement would have cut it.
    await watch.looked(14);
    expect(done).toBe(false);
    release();
    expect(await answer).toBe('paid result');
    expect((await stopped).clean).toBe(true);
  });

  it('does not wait past the grace for a request that never reaches settlement', async () => {
    const { lifecycle, advance } = manualLifecycle();
    const { url, active, entered } = await start(() => new Promise<Response>(() => {}));
    const answer = fetch(url).catch((error: unknown) => error);
    await entered;
    const watch = watched(active);
    let done = false;
    const stopped = stop(lifecycle, watch.active, 300).then((result) => {
      done = true;
      return result;
    });
    await watch.looked(6); // within the grace the request is waited for
    expect(done).toBe(false);
    advance(301);
    const { clean } = await stopped;
    expect(clean).toBe(true);
    expect(await answer).toBeInstanceOf(Error);
  });

  it('cuts everything at the hard stop', async () => {
    const lifecycle = createLifecycle();
    const { url, active, entered } = await start(async () => {
      lifecycle.beginSettlement();
      return new Promise<Response>(() => {});
    });
    void fetch(url).catch(() => {});
    await entered;
    const { clean, ms } = await stop(lifecycle, active, 100, 500);
    expect(clean).toBe(false);
    // The hard stop is the feature: at 500 ms, within a tenfold margin (a timer may fire a fraction
    // of a millisecond before performance.now() reaches its delay).
    expect(ms).toBeGreaterThanOrEqual(499);
    expect(ms).toBeLessThan(5_000);
  });
});
