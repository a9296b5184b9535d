/**
 * A node:http server on 127.0.0.1, ephemeral port, that records every request and drops all open
 * connections at close (so a hanging fake never keeps a test alive). Every world fake builds on it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  /** When it came and when its answer was written (`performance.now()`, this process). */
  receivedAt: number;
  answeredAt?: number;
}

export interface LoopbackServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: URL;
  requests: RecordedRequest[];
  /** Resolves with the first recorded request, past or future, that `matches`. */
  arrival(matches: (request: RecordedRequest) => boolean): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export type LoopbackHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

/** Starts `handler` on an ephemeral loopback port; pass a `node:https` server to serve TLS. */
export async function startLoopbackServer(
  handler: LoopbackHandler,
  server: Server = createServer(),
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const requests: RecordedRequest[] = [];
  const awaited = new Set<{
    matches: (request: RecordedRequest) => boolean;
    resolve: (r: RecordedRequest) => void;
  }>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      receivedAt: performance.now(),
    };
    res.once('finish', () => (recorded.answeredAt = performance.now()));
    requests.push(recorded);
    for (const waiter of awaited)
      if (waiter.matches(recorded)) {
        awaited.delete(waiter);
        waiter.resolve(recorded);
      }
    Promise.resolve(handler(req, res, url)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    requests,
    arrival: (matches) => {
      const seen = requests.find(matches);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => awaited.add({ matches, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
