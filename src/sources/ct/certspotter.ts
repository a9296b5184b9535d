/**
 * SSLMate Cert Spotter API v1 client: unexpired issuances for a name and its covering wildcard,
 * following `after=` pages until an empty one. Precert and cert come merged, with
 * the DER of one of them (`expand=cert_der`).
 */
import { z } from 'zod';
import { boundedFetch, type FetchLike } from '../bounded-fetch.ts';
import { fail, type SourceResult, succeed } from '../failure.ts';
import { type Issuance, issuanceCovers, namesNormalizer, withPackedNames } from './issuance.ts';
import { issuerFriendlyName } from './issuer-name.ts';
import { parseJsonArrayReply } from './parse-reply.ts';
import { base64Der, readCertificate } from './x509.ts';

export const CERTSPOTTER_SOURCE = 'certspotter';
/** Largest page body accepted, in bytes (a page holds at most 100 issuances, each with its DER). */
export const CERTSPOTTER_MAX_BYTES = 2 * 1024 * 1024;
/** Most pages followed; more means a name with over 1,000 live certificates, which we refuse. */
export const CERTSPOTTER_MAX_PAGES = 10;
/**
 * Issuances, newest first, whose DER is read and kept (the current certificate's is the one that
 * matters); so a cached answer of 1,000 issuances stays small and quick to make.
 */
export const CERTSPOTTER_DER_KEPT = 5;

// Observed with `Z`; an old doc example uses `-00:00`, so any numeric offset is accepted.
const rfc3339 = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'an RFC 3339 time')
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), 'a real date');

const certspotterIssuanceSchema = z.object({
  id: z.string().regex(/^\d+$/, 'a digit string'),
  tbs_sha256: z.string(),
  cert_sha256: z.string(),
  dns_names: z.array(z.string()),
  pubkey_sha256: z.string(),
  // `friendly_name` is ignored: the name is derived from the DN for both sources (issuer-name.ts).
  issuer: z.object({
    pubkey_sha256: z.string(),
    name: z.string(),
  }),
  not_before: rfc3339,
  not_after: rfc3339,
  revoked: z.boolean().optional(),
  // Base64 DER of the certificate or its precertificate, sent with `expand=cert_der`.
  cert_der: z.string().optional(),
});
type CertspotterIssuance = z.infer<typeof certspotterIssuanceSchema>;

export interface CertspotterCallOptions {
  fetch: FetchLike;
  /** Cert Spotter base URL (`CERTSPOTTER_URL`). */
  baseUrl: URL;
  /** Optional API key, sent as `Authorization: Bearer`. */
  apiKey?: string | undefined;
  /** Budget for all pages together, in milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Monotonic clock in milliseconds, for the shared page budget. */
  clock?: () => number;
}

/** The issuances URL for one page; `after` is the id of the last issuance of the previous page. */
export function certspotterPageUrl(baseUrl: URL, domain: string, after: string | null): URL {
  const url = new URL('v1/issuances', baseUrl.href.endsWith('/') ? baseUrl.href : `${baseUrl.href}/`);
  url.searchParams.set('domain', domain);
  url.searchParams.set('include_subdomains', 'false');
  url.searchParams.set('match_wildcards', 'true');
  url.searchParams.append('expand', 'dns_names');
  url.searchParams.append('expand', 'issuer');
  url.searchParams.append('expand', 'cert_der');
  if (after !== null) url.searchParams.set('after', after);
  return url;
}

/** Unexpired issuances covering `domain`, newest first. */
export async function fetchCertspotterIssuances(
  domain: string,
  options: CertspotterCallOptions,
): Promise<SourceResult<Issuance[]>> {
  const clock = options.clock ?? (() => performance.now());
  const deadline = clock() + options.timeoutMs;
  // Each page is read into issuances as it comes, so its raw names are not kept for the next ones.
  const normalize = namesNormalizer();
  const collected: Read[] = [];
  let after: string | null = null;
  for (let page = 0; page < CERTSPOTTER_MAX_PAGES; page++) {
    const reply = await fetchPage(certspotterPageUrl(options.baseUrl, domain, after), {
      ...options,
      timeoutMs: Math.max(1, Math.floor(deadline - clock())),
    });
    if (!reply.ok) return reply;
    const last = reply.value.at(-1);
    // The documented end of the listing is an empty page.
    if (!last) return succeed(newestFirst(collected));
    // Each item is let go once read (its raw names with it), not kept until the page is done.
    const items = reply.value;
    for (let item = items.shift(); item !== undefined; item = items.shift()) {
      const issuance = toIssuance(item, await normalize(item.dns_names));
      // Kept packed: at the cap, the names of all pages would otherwise be ~770,000 live strings.
      if (issuanceCovers(issuance, domain))
        collected.push({ issuance: withPackedNames(issuance), certDer: item.cert_der });
    }
    after = last.id;
  }
  return fail({
    code: 'too_large',
    source: CERTSPOTTER_SOURCE,
    detail: `certspotter listed more than ${CERTSPOTTER_MAX_PAGES} pages of issuances`,
  });
}

/** An issuance read from a page, with the DER its item carried (base64), read only if it is among the newest. */
interface Read {
  issuance: Issuance;
  certDer: string | undefined;
}

async function fetchPage(
  url: URL,
  options: CertspotterCallOptions,
): Promise<SourceResult<CertspotterIssuance[]>> {
  const response = await boundedFetch(url, {
    source: CERTSPOTTER_SOURCE,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    maxBytes: CERTSPOTTER_MAX_BYTES,
    accept: ['application/json'],
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    signal: options.signal,
  });
  if (!response.ok) return response;
  return parseJsonArrayReply(CERTSPOTTER_SOURCE, response.value.body, certspotterIssuanceSchema);
}

function toIssuance(item: CertspotterIssuance, names: string[]): Issuance {
  return {
    issuer: issuerFriendlyName(item.issuer.name),
    issuerDn: item.issuer.name,
    serial: null,
    notBefore: item.not_before,
    notAfter: item.not_after,
    names,
    loggedAt: null,
    crtshId: null,
    der: null,
  };
}

function newestFirst(read: Read[]): Issuance[] {
  return read
    .sort((a, b) => b.issuance.notBefore.getTime() - a.issuance.notBefore.getTime())
    .map(({ issuance, certDer }, index) =>
      index < CERTSPOTTER_DER_KEPT ? withDer(issuance, certDer) : issuance,
    );
}

/**
 * Cert Spotter v1 has no serial field: the newest issuances read theirs from their DER, which they
 * keep. Reading one costs about a millisecond, too much for each of a thousand, whose serials stay
 * null (as before `cert_der` was asked for).
 */
function withDer(issuance: Issuance, certDer: string | undefined): Issuance {
  const der = certDer === undefined ? null : base64Der(certDer);
  return der ? withPackedNames({ ...issuance, der, serial: readCertificate(der)?.serial ?? null }) : issuance;
}
