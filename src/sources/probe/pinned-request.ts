/**
 * One HTTPS request to an address that was already resolved and checked: the socket goes to that
 * IP, SNI and Host carry the domain, and no code path resolves a name again (no DNS rebinding).
 * The TLS handshake is finished and judged before any HTTP byte is written: a certificate Node
 * refuses gets no request, but its chain is kept (unverified) for its dates and names.
 */
import { request } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { type PeerCertificate, type SecureContext, type TLSSocket, connect as tlsConnect } from 'node:tls';
import { USER_AGENT } from '../bounded-fetch.ts';
import { errorKindOf, isCertificateKind, type ProbeErrorKind } from './error-kind.ts';
import type { PeerChain } from './verdict.ts';

/** Where one probe connection goes. `address` is an IP literal that passed the address policy. */
export interface ProbeTarget {
  address: string;
  port: number;
  /** The domain: sent as SNI and in the Host header, and checked against the certificate. */
  servername: string;
  /** The TLS context (trust anchors) of every connection of one probe, made once. */
  secureContext: SecureContext;
}

/**
 * Opens the connection for one request; tests inject one that records targets. The request waits
 * for its `secureConnect` and goes ahead only when `authorized` is true.
 */
export type ProbeConnector = (target: ProbeTarget) => Socket;

/**
 * What one request produced: a status and the chain of the verified handshake, or a failure kind
 * (with the unverified chain when the failure is about the certificate).
 */
export type RequestOutcome =
  | { kind: 'response'; status: number; chain: PeerChain | null }
  | { kind: 'failure'; error: ProbeErrorKind; handshaken: boolean; chain: PeerChain | null };

/** Most certificates read from a peer's chain: real chains hold 2 to 4. */
export const PEER_CHAIN_MAX = 8;

/** Fails any lookup: the probe only ever connects to IP literals it has already checked. */
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`probe refused to resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
};

/**
 * The real connector: TLS to the IP with SNI set to the domain, in the probe's context. Node
 * verifies the chain and the name and reports the outcome in `authorized`/`authorizationError`
 * without tearing the socket down, so the refused chain can still be read (`handshake`).
 */
export const connectPinned: ProbeConnector = (target) =>
  tlsConnect({
    host: target.address,
    port: target.port,
    servername: target.servername,
    rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'],
    lookup: refuseLookup,
    secureContext: target.secureContext,
  });

/** The DER of every certificate the peer presented, leaf first, as Node links them by issuer. */
function peerChain(socket: TLSSocket, verified: boolean): PeerChain | null {
  const certificates: Uint8Array[] = [];
  const seen = new Set<PeerCertificate>();
  // A root's `issuerCertificate` is itself.
  let cert: PeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw && cert.raw.length > 0 && !seen.has(cert) && certificates.length < PEER_CHAIN_MAX) {
    seen.add(cert);
    certificates.push(new Uint8Array(cert.raw));
    cert = (cert as { issuerCertificate?: PeerCertificate }).issuerCertificate;
  }
  return certificates.length > 0 ? { certificates, verified } : null;
}

/** `authorizationError` is the verify code as a string (its declared type says Error). */
function authorizationCode(socket: TLSSocket): unknown {
  const reason = socket.authorizationError as unknown;
  return typeof reason === 'string' ? reason : (reason as { code?: unknown } | null)?.code;
}

type Handshake =
  | { kind: 'secure'; socket: TLSSocket; chain: PeerChain | null }
  | { kind: 'failure'; error: ProbeErrorKind; chain: PeerChain | null };

/** Connects and finishes the TLS handshake; never rejects. */
function handshake(target: ProbeTarget, connect: ProbeConnector, signal: AbortSignal): Promise<Handshake> {
  return new Promise<Handshake>((resolve) => {
    const socket = connect(target) as TLSSocket;
    const settle = (outcome: Handshake) => {
      signal.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      if (outcome.kind === 'failure') socket.on('error', () => {}).destroy();
      resolve(outcome);
    };
    const onAbort = () => settle({ kind: 'failure', error: 'timeout', chain: null });
    const onError = (error: unknown) => settle({ kind: 'failure', error: errorKindOf(error), chain: null });
    socket.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => {
      if (socket.authorized) {
        settle({ kind: 'secure', socket, chain: peerChain(socket, true) });
        return;
      }
      const error = errorKindOf({ code: authorizationCode(socket) });
      // Only a refusal about the certificate makes its chain worth reading (dates and names).
      settle({ kind: 'failure', error, chain: isCertificateKind(error) ? peerChain(socket, false) : null });
    });
    if (signal.aborted) onAbort();
  }).catch((error: unknown): Handshake => ({ kind: 'failure', error: errorKindOf(error), chain: null }));
}

/** RFC 9110 §7.2: Host carries the port only when it is not the scheme's default. */
function hostHeader(target: ProbeTarget): string {
  return target.port === 443 ? target.servername : `${target.servername}:${target.port}`;
}

/**
 * Sends `method /` over a verified handshake and settles at the response head (the body is never
 * read). Redirects are not followed. An abort of `signal` ends the request as a `timeout` failure.
 * Never rejects.
 */
export async function pinnedRequest(
  method: 'HEAD' | 'GET',
  target: ProbeTarget,
  connect: ProbeConnector,
  signal: AbortSignal,
): Promise<RequestOutcome> {
  const secured = await handshake(target, connect, signal);
  if (secured.kind === 'failure') return { ...secured, handshaken: false };
  const { socket, chain } = secured;
  return new Promise<RequestOutcome>((resolve) => {
    const req = request(
      {
        host: target.address,
        port: target.port,
        method,
        path: '/',
        headers: { host: hostHeader(target), 'user-agent': USER_AGENT, accept: '*/*' },
        lookup: refuseLookup,
        signal,
        createConnection: () => socket,
      },
      (res) => {
        resolve({ kind: 'response', status: res.statusCode ?? 0, chain });
        res.destroy();
      },
    );
    req.on('error', (error) => {
      resolve({
        kind: 'failure',
        error: signal.aborted ? 'timeout' : errorKindOf(error),
        handshaken: true,
        chain,
      });
    });
    req.end();
  }).catch((error: unknown): RequestOutcome => ({
    kind: 'failure',
    error: errorKindOf(error),
    handshaken: true,
    chain,
  }));
}
