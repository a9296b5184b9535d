/**
 * Loopback ACME CAs speaking ACME Renewal Information (RFC 9773) as the real ones do: a directory
 * whose `renewalInfo` names the endpoint (Let's Encrypt `/acme/renewal-info`, Google Trust Services
 * `/renewal-info`), and `GET {renewalInfo}/{CertID}` answering the window of every world
 * certificate the CA issued, with `Retry-After` (Let's Encrypt 21600 s, Google an empty
 * `explanationURL`), 404 problem JSON for a CertID it does not know, and the failure modes.
 */
import type { ServerResponse } from 'node:http';
import { certIdOf } from '../../src/sources/ari/cert-id.ts';
import { readCertificate } from '../../src/sources/ct/x509.ts';
import type { CtCertificates } from './ct-certificates.ts';
import { type DatedCertificate, datedCertificate, datedCertificates, renewalSeries } from './ct-history.ts';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { Scenario } from './scenario.ts';

const DAY_MS = 86_400_000;

/**
 * How a CA answers for a scenario's certificates: `window` its usual window (or the scenario's);
 * `not_found` 404; `rate_limited` 429 and `unavailable` 503, both with `Retry-After`; `hang` never;
 * `invalid` a window whose end is before its start.
 */
export type AcmeMode = 'window' | 'not_found' | 'rate_limited' | 'unavailable' | 'hang' | 'invalid';

/** A scenario's `ari` section: what the issuing CA says about its certificates. */
export interface AriScenario {
  mode?: AcmeMode;
  /** The window, in days from now (negative: past); default the CA's usual one for each certificate. */
  window?: { startDays: number; endDays: number };
  /** An explanation URL (an incident or a drill). */
  explanationUrl?: string;
}

export type AcmeCaName = 'letsencrypt' | 'google';

/** A scenario whose Let's Encrypt certificates (a regular series, newest 30 days old) get `mode` from the CA. */
export function ariModeScenario(domain: string, mode: AcmeMode, about: string): Scenario {
  return {
    domain,
    about: `ARI: ${about}`,
    ct: {
      certificates: renewalSeries({
        issuer: 'le-r11',
        names: [domain, `www.${domain}`],
        count: 3,
        lastIssuedDaysAgo: 30,
        everyDays: [58, 61],
      }),
    },
    ari: { mode },
  };
}

/** The ARI-speaking CAs of the world, by the issuers' friendly name. */
const CA_OF_ISSUER: Record<string, AcmeCaName> = {
  "Let's Encrypt": 'letsencrypt',
  'Google Trust Services': 'google',
};

/** Each CA's `renewalInfo` path and what it sends beside the window. */
const CA_SHAPES: Record<AcmeCaName, { path: string; retryAfter: string; emptyExplanation: boolean }> = {
  letsencrypt: { path: '/acme/renewal-info', retryAfter: '21600', emptyExplanation: false },
  google: { path: '/renewal-info', retryAfter: '21600', emptyExplanation: true },
};

export interface AcmeCaFake extends LoopbackServer {
  ca: AcmeCaName;
  directoryUrl: URL;
  /** Overrides every scenario's mode while set. */
  mode: AcmeMode | null;
  /** `Retry-After` of a 429 / 503, in seconds. */
  failureRetryAfter: string;
  /** When set, the directory advertises this `renewalInfo` instead of its own. */
  renewalInfoOverride: string | null;
}

export interface AcmeFakeOptions {
  now?: () => Date;
  /** The world's certificate bytes (shared with the CT fakes), whose AKI and serial make each CertID. */
  certificates: CtCertificates;
}

/** The CertID of a world certificate, read from its bytes as any ARI client would. */
export async function worldCertId(
  certificates: CtCertificates,
  cert: DatedCertificate,
): Promise<string | null> {
  const facts = readCertificate(await certificates.der(cert, 'certificate'));
  return facts?.authorityKeyId ? certIdOf(facts.authorityKeyId, facts.serialNumber) : null;
}

/** The newest world certificate of a scenario domain (the one ARI is asked about). */
export function newestCertificate(
  scenarios: Map<string, Scenario>,
  domain: string,
  now = new Date(),
): DatedCertificate {
  const scenario = scenarios.get(domain);
  const newest = scenario && datedCertificates(new Map([[domain, scenario]]), now).at(-1);
  if (!newest) throw new Error(`no certificate for ${domain}`);
  return newest;
}

/** The world certificate a scenario's site serves (`https.serves`). */
export function servedCertificate(
  scenarios: Map<string, Scenario>,
  domain: string,
  now = new Date(),
): DatedCertificate {
  const scenario = scenarios.get(domain);
  const served = scenario?.https?.serves;
  const cert = served === undefined ? undefined : scenario?.ct?.certificates[served];
  if (!cert) throw new Error(`${domain} serves no CT certificate`);
  return datedCertificate(cert, now);
}

/**
 * Boulder's usual window (RenewalInfoSimple): a third of the lifetime before expiry (half of it for
 * lifetimes under 10 days), ± 1 % of it.
 */
function usualWindow(cert: DatedCertificate): { start: Date; end: Date } {
  const lifetime = cert.notAfter.getTime() + 1000 - cert.notBefore.getTime();
  const ideal = cert.notAfter.getTime() - lifetime / (lifetime < 10 * DAY_MS ? 2 : 3);
  const margin = lifetime / 100;
  return { start: new Date(ideal - margin), end: new Date(ideal + margin) };
}

/** Starts one CA. */
export async function startAcmeCa(
  ca: AcmeCaName,
  scenarios: Map<string, Scenario>,
  options: AcmeFakeOptions,
): Promise<AcmeCaFake> {
  const now = options.now ?? (() => new Date());
  // A certificate's CertID never changes: read each once (the world's dates move, its serials do not).
  const ids = new Map<string, Promise<string | null>>();
  const idOf = (cert: DatedCertificate) => {
    const key = `${cert.issuer.dn}|${cert.serial}`;
    let id = ids.get(key);
    if (!id) {
      id = worldCertId(options.certificates, cert);
      ids.set(key, id);
    }
    return id;
  };
  const shape = CA_SHAPES[ca];
  let fake: AcmeCaFake | undefined;
  const server = await startLoopbackServer(async (_req, res, url) => {
    const base = fake?.url.href.replace(/\/$/, '') ?? '';
    if (url.pathname === '/directory') {
      return sendJson(res, 200, {
        keyChange: `${base}/acme/key-change`,
        meta: { caaIdentities: [ca === 'google' ? 'pki.goog' : 'letsencrypt.org'] },
        newAccount: `${base}/acme/new-acct`,
        newNonce: `${base}/acme/new-nonce`,
        newOrder: `${base}/acme/new-order`,
        renewalInfo: fake?.renewalInfoOverride ?? `${base}${shape.path}`,
        revokeCert: `${base}/acme/revoke-cert`,
      });
    }
    if (!url.pathname.startsWith(`${shape.path}/`)) return problem(res, 404, 'malformed', 'Not found');
    const certId = decodeURIComponent(url.pathname.slice(shape.path.length + 1));
    const found = await findCertificate(ca, scenarios, now(), certId, idOf);
    if (!found) return problem(res, 404, 'malformed', 'Certificate not found');
    const mode = fake?.mode ?? found.scenario.ari?.mode ?? 'window';
    const retryAfter = { 'retry-after': fake?.failureRetryAfter ?? '120' };
    switch (mode) {
      case 'hang':
        return;
      case 'not_found':
        return problem(res, 404, 'malformed', 'Certificate not found');
      case 'rate_limited':
        return problem(res, 429, 'rateLimited', 'Too many renewalInfo requests', retryAfter);
      case 'unavailable':
        return problem(res, 503, 'serverInternal', 'Service unavailable', retryAfter);
      default: {
        const custom = found.scenario.ari?.window;
        const window = custom
          ? {
              start: new Date(now().getTime() + custom.startDays * DAY_MS),
              end: new Date(now().getTime() + custom.endDays * DAY_MS),
            }
          : usualWindow(found.cert);
        const [start, end] = mode === 'invalid' ? [window.end, window.start] : [window.start, window.end];
        const explanation = found.scenario.ari?.explanationUrl ?? (shape.emptyExplanation ? '' : undefined);
        return sendJson(
          res,
          200,
          {
            suggestedWindow: { start: rfc3339(start), end: rfc3339(end) },
            ...(explanation !== undefined ? { explanationURL: explanation } : {}),
          },
          { 'retry-after': shape.retryAfter },
        );
      }
    }
  });
  fake = Object.assign(server, {
    ca,
    directoryUrl: new URL('/directory', server.url),
    mode: null,
    failureRetryAfter: '120',
    renewalInfoOverride: null,
  });
  return fake;
}

/** The world certificate `ca` issued whose CertID is `certId`, with its scenario. */
async function findCertificate(
  ca: AcmeCaName,
  scenarios: Map<string, Scenario>,
  now: Date,
  certId: string,
  idOf: (cert: DatedCertificate) => Promise<string | null>,
): Promise<{ cert: DatedCertificate; scenario: Scenario } | null> {
  for (const scenario of scenarios.values()) {
    for (const cert of datedCertificates(new Map([[scenario.domain, scenario]]), now)) {
      // A CA does not know its expired certificates for ARI.
      if (CA_OF_ISSUER[cert.issuer.friendlyName] !== ca || cert.notAfter <= now) continue;
      if ((await idOf(cert)) === certId) return { cert, scenario };
    }
  }
  return null;
}

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function problem(
  res: ServerResponse,
  status: number,
  type: string,
  detail: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: `urn:ietf:params:acme:error:${type}`, detail, status }));
}
