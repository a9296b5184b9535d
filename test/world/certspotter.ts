/**
 * Loopback SSLMate Cert Spotter API v1: `/v1/issuances` with expansions, unexpired issuances only,
 * discovery order, `after=` pagination (100 a page), the JSON 429, and the
 * certificates' real DER with `expand=cert_der`.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  type CertspotterMode,
  type DatedCertificate,
  datedCertificates,
  scenarioForName,
} from './ct-history.ts';
import { type CtCertificates, ctCertificates } from './ct-certificates.ts';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { Scenario } from './scenario.ts';

/** Issuances per page, as the real API sends. */
export const CERTSPOTTER_PAGE_SIZE = 100;

export interface CertspotterFake extends LoopbackServer {
  /** Overrides every scenario's mode while set. */
  mode: CertspotterMode | null;
  /** Extra delay before any answer, in milliseconds (added to a scenario's own delay). */
  delayMs: number;
}

export interface CertspotterFakeOptions {
  /** The fake's clock; default the real time. */
  now?: () => Date;
  /** `Retry-After` sent with a 429, in seconds. */
  retryAfterSeconds?: number;
  /** Where the certificates' bytes come from (share one with the other fakes); default a fresh CA's. */
  certificates?: CtCertificates;
}

/** Starts a Cert Spotter fake answering from the `ct` sections of `scenarios`. */
export async function startCertspotter(
  scenarios: Map<string, Scenario>,
  options: CertspotterFakeOptions = {},
): Promise<CertspotterFake> {
  const now = options.now ?? (() => new Date());
  const certificates = options.certificates ?? ctCertificates();
  let fake: CertspotterFake | undefined;
  const server = await startLoopbackServer(async (_req, res, url) => {
    const domain = (url.searchParams.get('domain') ?? '').toLowerCase();
    const scenario = scenarioForName(scenarios, domain)?.ct;
    const delayMs = (fake?.delayMs ?? 0) + (scenario?.certspotter?.delayMs ?? 0);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    const mode = fake?.mode ?? scenario?.certspotter?.mode ?? 'ok';
    if (mode === 'hang') return;
    if (mode === 'rate_limited') {
      return sendJson(res, 429, apiError('rate_limited', RATE_LIMIT_MESSAGE), {
        'retry-after': String(options.retryAfterSeconds ?? 3600),
      });
    }
    if (mode === 'server_error')
      return sendJson(res, 500, apiError('internal_error', 'An internal error occurred.'));
    if (url.pathname !== '/v1/issuances') return sendJson(res, 404, apiError('not_found', 'Not found.'));
    if (!domain.includes('.'))
      return sendJson(res, 400, apiError('invalid_domain', 'domain must be a registered domain.'));
    const expand = new Set(url.searchParams.getAll('expand'));
    const flag = (name: string) => url.searchParams.get(name) === 'true';
    const after = BigInt(url.searchParams.get('after') ?? '0');
    const page = datedCertificates(scenarios, now())
      .map((cert, index) => ({ cert, id: BigInt(7_400_000_000 + index) }))
      // Cert Spotter knows only what CT logs hold: a never-logged certificate is not listed.
      .filter(({ cert, id }) => id > after && cert.notAfter > now() && cert.loggedAt !== null)
      .filter(({ cert }) =>
        allNames(cert).some((name) =>
          matches(name, domain, flag('match_wildcards'), flag('include_subdomains')),
        ),
      )
      .slice(0, CERTSPOTTER_PAGE_SIZE);
    const objects = await Promise.all(
      page.map(async ({ cert, id }) => ({
        ...issuanceObject(cert, String(id), expand),
        // The final certificate's DER: every world certificate has one.
        ...(expand.has('cert_der')
          ? { cert_der: Buffer.from(await certificates.der(cert, 'certificate')).toString('base64') }
          : {}),
      })),
    );
    sendJson(res, 200, objects);
  });
  fake = Object.assign(server, { mode: null, delayMs: 0 });
  return fake;
}

const RATE_LIMIT_MESSAGE =
  'You have exceeded the domain search rate limit for the Cert Spotter API. Please try again later, or authenticate with an API key, which you can obtain by signing up at https://sslmate.com/signup?for=ct_search_api.';

function apiError(code: string, message: string): { code: string; message: string } {
  return { code, message };
}

/** CN + DNS SANs, as `dns_names` lists them. */
function allNames(cert: DatedCertificate): string[] {
  return [...new Set([...(cert.commonName ? [cert.commonName] : []), ...cert.names])];
}

function matches(name: string, domain: string, wildcards: boolean, subdomains: boolean): boolean {
  if (name === domain) return true;
  if (subdomains && name.endsWith(`.${domain}`)) return true;
  if (!wildcards || !name.startsWith('*.')) return false;
  // A wildcard matches exactly one label in front of its base name.
  const base = name.slice(1);
  const label = domain.slice(0, -base.length);
  return domain.endsWith(base) && label.length > 0 && !label.includes('.');
}

/** One issuance object, fields in the API's order; `dns_names` and `issuer` only when expanded (`cert_der` is added last). */
function issuanceObject(cert: DatedCertificate, id: string, expand: Set<string>): Record<string, unknown> {
  const tbs = sha256(`tbs|${cert.serial}`);
  return {
    id,
    tbs_sha256: tbs,
    cert_sha256: sha256(`cert|${cert.serial}`),
    ...(expand.has('dns_names') ? { dns_names: allNames(cert) } : {}),
    pubkey_sha256: sha256(`key|${cert.names.join(',')}`),
    ...(expand.has('issuer')
      ? {
          issuer: {
            friendly_name: cert.issuer.friendlyName,
            pubkey_sha256: sha256(`issuer|${cert.issuer.dn}`),
            name: cert.issuer.dn,
          },
        }
      : {}),
    not_before: rfc3339(cert.notBefore),
    not_after: rfc3339(cert.notAfter),
    revoked: false,
  };
}

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
