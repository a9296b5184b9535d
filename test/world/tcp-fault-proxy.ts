/**
 * A TCP relay on loopback in front of a server (a real redis-server), as the network between an
 * instance and its Redis: it can drop what the server answers while still forwarding what the
 * client sends (a command that ran, whose reply never came back), and cut every connection.
 */
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpFaultProxy {
  /** `redis://127.0.0.1:<port>`: where clients connect instead of the server. */
  url: URL;
  /** While on, the server's answers are dropped; the client's commands still reach it. */
  dropReplies(on: boolean): void;
  /** Resolves once an answer of the server has been dropped (after `dropReplies(true)`). */
  replyDropped(): Promise<void>;
  /** Ends every connection at once, as a network fault would; clients reconnect through the relay. */
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(target: URL): Promise<TcpFaultProxy> {
  const sockets = new Set<Socket>();
  let dropping = false;
  let dropped: () => void = () => {};
  let nextDrop = Promise.resolve();

  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (!dropping) return void client.write(chunk);
      dropped();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };

  return {
    url: new URL(`redis://127.0.0.1:${port}`),
    dropReplies(on) {
      dropping = on;
      if (on) nextDrop = new Promise<void>((resolve) => (dropped = resolve));
    },
    replyDropped: () => nextDrop,
    cut() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
