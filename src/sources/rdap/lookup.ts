/**
 * RDAP domain lookup (RFC 7480, RFC 9083): asks the registry's server for a domain, then follows
 * the registrar referral when the registry leaves the registrar out, all before one deadline.
 * Both URLs come from outside (the bootstrap file, the registry's answer), so both go through the
 * steered fetch (`public-fetch`), which also follows RFC 7480 §5.2 redirects under the SSRF policy.
 */
import { boundedFetch, type FetchLike, parseJsonBody } from '../bounded-fetch.ts';
import { fail, type SourceCall, type SourceResult, succeed } from '../failure.ts';
import { withoutCredentials } from '../public-fetch/public-fetch.ts';
import { parseRegistration, type RdapRegistration } from './registration.ts';

/** Upstream name of the registry's RDAP server. */
export const RDAP_REGISTRY_SOURCE = 'rdap';
/** Upstream name of the registrar's RDAP server reached through the registry's referral. */
export const RDAP_REGISTRAR_SOURCE = 'rdap-registrar';
/** Largest RDAP answer accepted, in bytes. */
export const RDAP_MAX_BYTES = 256 * 1024;
// RFC 7480 §4.2 allows either JSON type; rdap.nic.fr once refused the RDAP type alone and answers plain JSON.
const RDAP_ACCEPT = 'application/rdap+json, application/json;q=0.9';
const RDAP_MEDIA_TYPES = ['application/rdap+json', 'application/json'] as const;

/** What the registry said about a domain it is responsible for. */
export type RegistryAnswer =
  | { kind: 'not_registered'; server: URL; sources: SourceCall[] }
  | { kind: 'registered'; server: URL; registration: RdapRegistration; sources: SourceCall[] };

export interface LookupDeps {
  /** The steered fetch (`createPublicFetch`): never a plain fetch, these URLs are untrusted. */
  fetch: FetchLike;
  /** The lookup's whole budget in milliseconds, as named in timeout details. */
  budgetMs: number;
  /** Aborts at the end of that budget; the registry call and the referral share it. */
  deadline: AbortSignal;
}

/** Looks `domain` up at the RDAP server `base` (a bootstrap base URL ending in `/`). */
export async function lookupDomain(
  base: URL,
  domain: string,
  deps: LookupDeps,
): Promise<SourceResult<RegistryAnswer>> {
  const url = new URL(`domain/${domain.toLowerCase()}`, base);
  const registry = await fetchDomain(url, RDAP_REGISTRY_SOURCE, deps, [404]);
  if (!registry.ok) return registry;
  const sources: SourceCall[] = [sourceCall(RDAP_REGISTRY_SOURCE, base, true, registry.value.ms)];
  // RFC 7480 §5.3: the status decides. 404 means no such object, whatever the body or its type
  // (Verisign sends it empty, some registries' proxies as text/html or untyped).
  if (!registry.value.found) return succeed({ kind: 'not_registered', server: base, sources });
  const { registration } = registry.value;

  const { name, ianaId } = registration.registrar;
  if ((name && ianaId) || !registration.referral) {
    return succeed({ kind: 'registered', server: base, registration, sources });
  }
  const started = performance.now();
  const referral = await fetchDomain(registration.referral, RDAP_REGISTRAR_SOURCE, deps, []);
  const registrarBase = new URL('/', registration.referral);
  if (!referral.ok || !referral.value.found) {
    // The registry's data stands on its own; a failed or refused referral only shows in `sources`.
    sources.push(sourceCall(RDAP_REGISTRAR_SOURCE, registrarBase, false, performance.now() - started));
    return succeed({ kind: 'registered', server: base, registration, sources });
  }
  sources.push(sourceCall(RDAP_REGISTRAR_SOURCE, registrarBase, true, referral.value.ms));
  const fromRegistrar = referral.value.registration.registrar;
  return succeed({
    kind: 'registered',
    server: base,
    registration: {
      ...registration,
      registrar: { name: name ?? fromRegistrar.name, ianaId: ianaId ?? fromRegistrar.ianaId },
    },
    sources,
  });
}

/** A domain object, or `found: false` for a 404 (only when 404 is among `notFound`). */
type DomainResponse =
  { found: false; ms: number } | { found: true; ms: number; registration: RdapRegistration };

async function fetchDomain(
  url: URL,
  source: string,
  deps: LookupDeps,
  notFound: readonly number[],
): Promise<SourceResult<DomainResponse>> {
  const response = await boundedFetch(url, {
    source,
    fetch: deps.fetch,
    timeoutMs: deps.budgetMs,
    maxBytes: RDAP_MAX_BYTES,
    accept: RDAP_MEDIA_TYPES,
    statusOnly: notFound,
    redirect: 'follow',
    headers: { accept: RDAP_ACCEPT },
    signal: deps.deadline,
  });
  if (!response.ok) {
    if (deps.deadline.aborted && response.failure.code === 'timeout') {
      return fail({
        ...response.failure,
        detail: `${source} did not answer within the ${deps.budgetMs} ms budget`,
      });
    }
    return response;
  }
  const { status, ms, body } = response.value;
  if (status === 404) return succeed({ found: false, ms });
  const json = parseJsonBody(source, body);
  if (!json.ok) return json;
  const registration = parseRegistration(json.value);
  if (typeof registration === 'string')
    return fail({ code: 'malformed', source, detail: `${source}: ${registration}` });
  return succeed({ found: true, ms, registration });
}

function sourceCall(name: string, url: URL, ok: boolean, ms: number): SourceCall {
  return { name, url: withoutCredentials(url).href, ok, ms: Math.round(ms), cached: false };
}
