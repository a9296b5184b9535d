/**
 * The Node.js `PinnedTransport`: the socket goes to the checked IP, Host (and SNI for https) carry
 * the URL's host name, and no code path resolves a name again (no DNS rebinding between check and use).
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { PinnedTransport } from './public-fetch.ts';

/** Where one connection goes. `address` is an IP literal that passed the address policy. */
export interface ConnectTarget {
  address: string;
  port: number;
  /** https only: the host name sent as SNI and checked against the certificate; undefined for an IP URL. */
  servername: string | undefined;
  tls: boolean;
}

/** Opens the connection for one exchange; tests inject one that records targets. */
export type SocketConnector = (target: ConnectTarget) => Socket;

/** Fails any lookup: only IP literals that were already checked are ever connected to. */
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`refused to resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
};

/** The real connector: TCP, or TLS with verification on and SNI set to the host name. */
export const connectSocket: SocketConnector = (target) =>
  target.tls
    ? tlsConnect({
        host: target.address,
        port: target.port,
        ...(target.servername ? { servername: target.servername } : {}),
        rejectUnauthorized: true,
        ALPNProtocols: ['http/1.1'],
        lookup: refuseLookup,
      })
    : netConnect({ host: target.address, port: target.port, lookup: refuseLookup });

// Fetch forbids a body on these (and Response rejects one).
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

function toResponse(res: IncomingMessage): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw Object.assign(new Error(`unusable HTTP status ${status}`), { code: 'HPE_INVALID_STATUS' });
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    headers.append(res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '');
  }
  const body = NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  if (body === null) res.resume();
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers });
}

/** Creates the Node transport; `connect` defaults to `connectSocket`. */
export function createNodeTransport(connect: SocketConnector = connectSocket): PinnedTransport {
  return function nodeTransport({ url, address, headers, signal, method = 'GET', body }) {
    const tls = url.protocol === 'https:';
    const port = Number(url.port) || (tls ? 443 : 80);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const target: ConnectTarget = { address, port, servername: host === address ? undefined : host, tls };
    return new Promise<Response>((resolve, reject) => {
      const req = (tls ? httpsRequest : httpRequest)(
        {
          host: address,
          port,
          method,
          path: `${url.pathname}${url.search}`,
          // RFC 9110 §7.2: Host carries the port only when it is not the scheme's default (url.host does that).
          headers: {
            ...Object.fromEntries(headers),
            host: url.host,
            ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          },
          lookup: refuseLookup,
          ...(signal ? { signal } : {}),
          createConnection: () => connect(target),
        },
        (res) => {
          try {
            resolve(toResponse(res));
          } catch (error) {
            reject(error);
          }
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}
