/**
 * A load balancer on loopback in front of a fleet: each TCP connection goes to the next instance in
 * turn. It listens before the instances start, so its origin can be their `PUBLIC_BASE_URL`.
 */
import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

export interface RoundRobinFront {
  /** `http://127.0.0.1:<port>`: the fleet's public origin. */
  url: URL;
  /** The instances connections are spread over (set once they are up). */
  targets: URL[];
  close(): Promise<void>;
}

export async function startRoundRobinFront(): Promise<RoundRobinFront> {
  const sockets = new Set<Socket>();
  let turn = 0;
  const front: RoundRobinFront = { url: new URL('http://127.0.0.1'), targets: [], close: async () => {} };
  const server = createServer((client) => {
    const target = front.targets[turn++ % front.targets.length];
    if (!target) return void client.destroy();
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  front.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  front.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return front;
}
