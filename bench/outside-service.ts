/**
 * The service of the outside bench (bench/outside-app.ts) in a process of its own (bench/outside.ts
 * starts it), configured from its environment, trusting the world's CA (the PEM file named by
 * argv[2]). In its own process its work does not delay the world's fakes (the crt.sh fake's timer,
 * the site's TLS handshakes, DoH, ARI), nor they its own, as on separate machines.
 * `POST /bench/renew` builds a fresh app; the port is sent to the parent once listening.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { loadConfig } from '../src/config.ts';
import { outsideApp } from './outside-app.ts';

const caPem = readFileSync(process.argv[2] as string, 'utf8');
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const build = outsideApp(config, caPem);
let app = await build();
const server = serve({
  async fetch(request) {
    if (request.method === 'POST' && new URL(request.url).pathname === '/bench/renew') {
      app = await build();
      return new Response(null, { status: 204 });
    }
    return app.fetch(request);
  },
  hostname: '127.0.0.1',
  port: 0,
});
server.once('listening', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
