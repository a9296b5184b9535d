/**
 * A loopback TCP proxy that holds every chunk a client sends for `delayMs` before passing it on, in
 * order: in front of redis-server, each command round trip (or pipeline) takes `delayMs` longer, as
 * a Redis in another zone or a busy one would. The delay can be changed while connections are open.
 */
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';

export interface LatencyProxy {
  /** The target's URL with the proxy's loopback port. */
  url: URL;
  /** Added to each round trip from now on. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startLatencyProxy(target: URL, delayMs = 0): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const proxy: LatencyProxy = { url: new URL(target.href), delayMs, close };
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    track(client);
    track(upstream);
    // Each chunk waits its own delay; chunks leave in arrival order.
    let queue = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const due = performance.now() + proxy.delayMs;
      queue = queue.then(async () => {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (!upstream.destroyed) upstream.write(chunk);
      });
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the latency proxy has no port');
  proxy.url.hostname = '127.0.0.1';
  proxy.url.port = String(address.port);

  async function close(): Promise<void> {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return proxy;
}
