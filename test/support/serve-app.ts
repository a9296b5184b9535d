/** A Hono app on @hono/node-server at 127.0.0.1 on a free port, as outside clients reach it. */
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';

export interface ServedApp {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Drops open connections and stops listening. */
  close(): Promise<void>;
}

export async function serveApp(app: {
  fetch: (request: Request, env: unknown) => Response | Promise<Response>;
}): Promise<ServedApp> {
  const server = await new Promise<ServerType>((resolve) => {
    const listening = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
