/**
 * One HTTPS request to an address that was already resolved and checked: the socket goes to that
 * IP, SNI and Host carry the domain, and no code path resolves a name again (no DNS rebinding).
 */
import { request } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { type SecureContext, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { USER_AGENT } from '../bounded-fetch.ts';
import { errorKindOf, type ProbeErrorKind } from './error-kind.ts';

/** Where one probe connection goes. `address` is an IP literal that passed the address policy. */
export interface ProbeTarget {
  address: string;
  port: number;
  /** The domain: sent as SNI and in the Host header, and checked against the certificate. */
  servername: string;
  /** The TLS context (trust anchors) of every connection of one probe, made once. */
  secureContext: SecureContext;
}

/** Opens the connection for one request; tests inject one that records targets. */
export type ProbeConnector = (target: ProbeTarget) => Socket;

/**
 * What one request produced: a status, whether TLS was verified and then the served leaf's DER, or
 * a failure kind.
 */
export type RequestOutcome =
  | { kind: 'response'; status: number; verified: boolean; leaf: Uint8Array | null }
  | { kind: 'failure'; error: ProbeErrorKind; handshaken: boolean };

/** Fails any lookup: the probe only ever connects to IP literals it has already checked. */
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`probe refused to resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
};

/**
 * The real connector: TLS to the IP with verification on (`rejectUnauthorized`), SNI set to the
 * domain, in the probe's context.
 */
export const connectPinned: ProbeConnector = (target) =>
  tlsConnect({
    host: target.address,
    port: target.port,
    servername: target.servername,
    rejectUnauthorized: true,
    ALPNProtocols: ['http/1.1'],
    lookup: refuseLookup,
    secureContext: target.secureContext,
  });

/** The DER of the leaf certificate the server presented; null when the socket has none. */
function servedLeaf(socket: Partial<TLSSocket>): Uint8Array | null {
  const raw = socket.getPeerCertificate?.(false)?.raw;
  return raw && raw.length > 0 ? new Uint8Array(raw) : null;
}

/** RFC 9110 §7.2: Host carries the port only when it is not the scheme's default. */
function hostHeader(target: ProbeTarget): string {
  return target.port === 443 ? target.servername : `${target.servername}:${target.port}`;
}

/**
 * Sends `method /` and settles at the response head (the body is never read). Redirects are not
 * followed. An abort of `signal` ends the request as a `timeout` failure. Never rejects.
 */
export function pinnedRequest(
  method: 'HEAD' | 'GET',
  target: ProbeTarget,
  connect: ProbeConnector,
  signal: AbortSignal,
): Promise<RequestOutcome> {
  return new Promise<RequestOutcome>((resolve) => {
    let handshaken = false;
    const req = request(
      {
        host: target.address,
        port: target.port,
        method,
        path: '/',
        headers: { host: hostHeader(target), 'user-agent': USER_AGENT, accept: '*/*' },
        lookup: refuseLookup,
        signal,
        createConnection: () => {
          const socket = connect(target);
          socket.once('secureConnect', () => {
            handshaken = true;
          });
          return socket;
        },
      },
      (res) => {
        // `authorized` exists only on a TLS socket, and is true only after chain and name checks.
        const socket = res.socket as Partial<TLSSocket>;
        const verified = socket.authorized === true;
        resolve({
          kind: 'response',
          status: res.statusCode ?? 0,
          verified,
          leaf: verified ? servedLeaf(socket) : null,
        });
        res.destroy();
      },
    );
    req.on('error', (error) => {
      resolve({ kind: 'failure', error: signal.aborted ? 'timeout' : errorKindOf(error), handshaken });
    });
    req.end();
  }).catch((error: unknown): RequestOutcome => ({
    kind: 'failure',
    error: errorKindOf(error),
    handshaken: false,
  }));
}
