/**
 * A one-handler HTTPS server on loopback for the edge tests' cases the world's site has no mode for
 * (a 404, a streamed body, an echo of the request): a leaf for `names` from a fresh test CA.
 */
import { createServer } from 'node:https';
import {
  type LoopbackHandler,
  type LoopbackServer,
  startLoopbackServer,
} from '../../world/loopback-server.ts';
import { createTestCa } from '../../world/test-ca.ts';

export interface TlsSite extends LoopbackServer {
  port: number;
  /** The CA that issued the site's certificate, for the client's trust store. */
  caPem: string;
}

export async function startTlsSite(names: readonly string[], handler: LoopbackHandler): Promise<TlsSite> {
  const ca = await createTestCa();
  const leaf = await ca.issue(names);
  const server = await startLoopbackServer(handler, createServer({ key: leaf.keyPem, cert: leaf.certPem }));
  return Object.assign(server, { port: Number(server.url.port), caPem: ca.certPem });
}
