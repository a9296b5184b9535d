/**
 * The scenario domains' own websites: one node:https server on 127.0.0.1 that picks a certificate
 * by SNI (leaves from a test CA) and answers each Host in the scenario's mode, failures included.
 */
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { createSecureContext, type TLSSocket } from 'node:tls';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { Scenario } from './scenario.ts';
import { type CtCertificates, ctCertificates } from './ct-certificates.ts';
import { type CtCertificate, type DatedCertificate, datedCertificate } from './ct-history.ts';
import { createTestCa, type IssuedLeaf, type TestCa } from './test-ca.ts';

export { type CaFile, writeCaFile } from './test-ca.ts';

/**
 * How the site behaves: `ok` 200; `server-error` 500; `hang` accepts the request and never answers;
 * `reset` sends a TCP RST once the request arrives; `wrong-host` presents a valid certificate for
 * another name; `redirect` 301 to `https://www.<domain>/`; `head-405` and `head-reset` fail only
 * HEAD (405, or RST) and answer GET with 200, like servers that mishandle HEAD.
 */
export type HttpsMode =
  'ok' | 'server-error' | 'hang' | 'reset' | 'wrong-host' | 'redirect' | 'head-405' | 'head-reset';

/** A scenario's website section. */
export interface HttpsScenario {
  mode: HttpsMode;
  /**
   * Serve this one of the scenario's CT certificates (an index into `ct.certificates`), the very
   * bytes the CT fakes hold, instead of a fresh test leaf: how a site that renewed but did not
   * deploy is made.
   */
  serves?: number;
  /** Serve this certificate, which CT does not hold (CT lag), instead of a fresh test leaf. */
  unlogged?: CtCertificate;
  /** The served certificate's intermediate ends this many days from now (negative: expired). */
  intermediateDaysLeft?: number;
  /** The served certificate comes from a CA no client trusts (a private CA). */
  privateCa?: boolean;
}

/**
 * The sections of a probe-only scenario: the name resolves to loopback (so the world's site answers
 * the probe) and the site runs in `mode`. Spread it into the scenario object.
 */
export function loopbackSite(domain: string, mode: HttpsMode): Required<Pick<Scenario, 'dns' | 'https'>> {
  return { dns: { records: { [domain]: { A: ['127.0.0.1'] } } }, https: { mode } };
}

/** The name on the certificate served when SNI is absent, unknown or the scenario is `wrong-host`. */
export const OTHER_HOST = 'default-vhost.net';

export interface HttpsSite extends LoopbackServer {
  /** The TLS port, for the probe's `port`. */
  port: number;
  /** The test CA certificate (PEM) that issued every leaf. */
  caPem: string;
  /** While set, overrides every scenario's mode (TLS and HTTP). */
  mode: HttpsMode | null;
  /** SNI server names of the TLS handshakes that sent one, in order. */
  servernames: string[];
}

export interface HttpsSiteOptions {
  /** Reuse a CA (e.g. one already trusted by a child process); a fresh one otherwise. */
  ca?: TestCa;
  /** The CT fakes' certificates, for scenarios that serve one (`serves`); default: ones of `ca`. */
  certificates?: CtCertificates;
  /** The clock that dates CT certificates; default the real time. */
  now?: () => Date;
}

/** Valid now, for a name a site could serve it for (never an issuer CT could not find). */
function isCurrent(cert: CtCertificate): boolean {
  return (
    cert.issuer !== 'unknown' && cert.issuedDaysAgo < (cert.lifetimeDays ?? 90) && cert.issuedDaysAgo >= 0
  );
}

/** A served certificate made for its scenario: under its own intermediate, or from a private CA. */
function issuedAs(
  issuer: TestCa,
  cert: DatedCertificate,
  https: HttpsScenario,
  now: Date,
): Promise<IssuedLeaf> {
  const days = https.intermediateDaysLeft;
  return issuer.issueAs({
    issuerDn: cert.issuer.dn,
    serial: cert.serial,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    names: cert.names,
    commonName: cert.commonName,
    precertificate: false,
    ...(days === undefined ? {} : { intermediateNotAfter: new Date(now.getTime() + days * 86_400_000) }),
  });
}

function hostOf(header: string | undefined): string {
  return (header ?? '').replace(/:\d+$/, '').toLowerCase();
}

/** Starts the site for every scenario with an `https` section. */
export async function startHttpsSite(
  scenarios: Map<string, Scenario>,
  options: HttpsSiteOptions = {},
): Promise<HttpsSite> {
  const ca = options.ca ?? (await createTestCa());
  const certificates = options.certificates ?? ctCertificates(ca);
  const now = options.now ?? (() => new Date());
  const controls: { mode: HttpsMode | null; servernames: string[] } = { mode: null, servernames: [] };
  const modeFor = (domain: string): HttpsMode | undefined =>
    controls.mode ?? scenarios.get(domain)?.https?.mode;

  const leaves = new Map<string, IssuedLeaf>();
  // Made only when a scenario asks for it: its root is in no trust store.
  let privateCa: Promise<TestCa> | undefined;
  for (const [domain, scenario] of scenarios) {
    const served = scenario.https?.serves;
    const ctCertificate = served === undefined ? undefined : scenario.ct?.certificates[served];
    if (served !== undefined && !ctCertificate)
      throw new Error(`${domain}: no CT certificate ${served} to serve`);
    const https = scenario.https;
    // A site serves its newest certificate unless the scenario says otherwise, as real sites do.
    const newest = [...(scenario.ct?.certificates ?? [])].sort(
      (a, b) => a.issuedDaysAgo - b.issuedDaysAgo,
    )[0];
    const spec = ctCertificate ?? https?.unlogged ?? (newest && isCurrent(newest) ? newest : undefined);
    if (spec && https && (https.unlogged || https.privateCa || https.intermediateDaysLeft !== undefined)) {
      const issuer = https.privateCa ? await (privateCa ??= createTestCa()) : ca;
      leaves.set(domain, await issuedAs(issuer, datedCertificate(spec, now()), https, now()));
    } else if (spec) leaves.set(domain, await certificates.serving(datedCertificate(spec, now())));
    else if (https) leaves.set(domain, await ca.issue([domain, `www.${domain}`]));
  }
  const other = await ca.issue([OTHER_HOST]);
  const contextFor = (leaf: IssuedLeaf) => ({ key: leaf.keyPem, cert: leaf.certPem });

  const server: Server = createServer({
    ...contextFor(other),
    SNICallback(servername, callback) {
      controls.servernames.push(servername);
      const leaf = leaves.get(servername);
      const chosen = leaf && modeFor(servername) !== 'wrong-host' ? leaf : other;
      callback(null, createSecureContext(contextFor(chosen)));
    },
  });
  server.on('tlsClientError', () => {}); // a client refusing our certificate is an expected outcome
  // A TLS socket cannot send an RST itself; keep the raw TCP socket, keyed by the client's port.
  const rawByPort = new Map<number, Socket>();
  server.on('connection', (raw: Socket) => {
    const port = raw.remotePort ?? 0;
    rawByPort.set(port, raw);
    raw.on('close', () => rawByPort.delete(port));
  });

  const base = await startLoopbackServer((req, res) => {
    const domain = hostOf(req.headers.host);
    const mode = modeFor(domain);
    const reset = () => {
      const socket = req.socket as TLSSocket;
      const raw = rawByPort.get(socket.remotePort ?? 0);
      if (raw) raw.resetAndDestroy();
      else socket.destroy();
    };
    if (mode === undefined) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('Misdirected Request\n');
    } else if (mode === 'hang') {
      // Never answer; the loopback server destroys the socket at close.
    } else if (mode === 'reset' || (mode === 'head-reset' && req.method === 'HEAD')) {
      reset();
    } else if (mode === 'head-405' && req.method === 'HEAD') {
      res.writeHead(405, { allow: 'GET' }).end();
    } else if (mode === 'server-error') {
      res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>\n');
    } else if (mode === 'redirect') {
      res.writeHead(301, { location: `https://www.${domain}/` }).end();
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>${domain}</h1>\n`);
    }
  }, server);

  const port = Number(base.url.port);
  return Object.assign(controls, base, {
    url: new URL(`https://127.0.0.1:${port}`),
    port,
    caPem: ca.certPem,
  });
}
