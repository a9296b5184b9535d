/**
 * RDAP bootstrap (RFC 9224): maps a domain to the base URL of its registry's RDAP server using
 * IANA's `dns.json`, fetched once, shared by concurrent callers and kept in memory for a day; a
 * failed fetch is remembered for a few seconds, like a good file for its day. With a shared tier
 * (`SharedAnswers`, namespace `rdap-bootstrap`) the file's services are offered to the other
 * instances for the rest of that day, so a fleet fetches it once a day, not once per instance.
 */
import { z } from 'zod';
import { boundedFetch, type FetchLike, parseJsonBody } from '../bounded-fetch.ts';
import { readShared, type SharedAnswers, type SharedTier, writeShared } from '../cache.ts';
import { fail, type SourceCall, type SourceFailure, type SourceResult, succeed } from '../failure.ts';
import { yieldToEventLoop } from '../json-array-slices.ts';
import { withoutCredentials } from '../public-fetch/public-fetch.ts';

/** Upstream name of the bootstrap file in `sources` and 502 bodies. */
export const RDAP_BOOTSTRAP_SOURCE = 'rdap-bootstrap';
/** How long a fetched bootstrap file is used before it is fetched again, in milliseconds (24 h). */
export const RDAP_BOOTSTRAP_TTL_MS = 24 * 60 * 60 * 1000;
/** How long an expired file may still be used while IANA cannot be reached, in milliseconds (7 days). */
export const RDAP_BOOTSTRAP_STALE_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Wait before retrying a failed refresh while a stale file is served, in milliseconds. */
export const RDAP_BOOTSTRAP_RETRY_MS = 5 * 60 * 1000;
/**
 * How long a failed fetch is answered from memory when there is no file to fall back on, in
 * milliseconds: a flood of unpaid `/v1/expiry` requests (each asks the bootstrap before the 402)
 * then costs IANA at most six fetches a minute instead of one per few requests.
 */
export const RDAP_BOOTSTRAP_FAILURE_TTL_MS = 10_000;
/** Largest bootstrap file accepted, in bytes (IANA's is about 60 KB). */
export const RDAP_BOOTSTRAP_MAX_BYTES = 1024 * 1024;

// RFC 9224 §4: each service is a pair [entries, service URLs]; other top-level members are ignored.
const bootstrapSchema = z.object({ services: z.array(z.unknown()) });
const servicesSchema = z.array(z.tuple([z.array(z.string()), z.array(z.string())]).rest(z.unknown()));
type Services = z.infer<typeof servicesSchema>;
/**
 * Services checked and added to the table between two yields to the event loop: a file at its cap
 * holds tens of thousands, half a second of work in one go.
 */
const SERVICES_PER_SLICE = 500;

/** Label string (lower case, e.g. `com`, `co.uk`) → base URLs, https first, each ending in `/`. */
export type BootstrapTable = ReadonlyMap<string, readonly URL[]>;

export interface ServerMatch {
  /** The RDAP base URL (ends in `/`), or null when no bootstrap entry covers the domain. */
  base: URL | null;
  /** How the bootstrap file was obtained, for a result's `sources`. */
  call: SourceCall;
}

export interface RdapBootstrap {
  /** Finds the RDAP server for `domain` (ASCII), fetching the bootstrap file when it is missing or a day old. */
  findServer(domain: string): Promise<SourceResult<ServerMatch>>;
}

export interface RdapBootstrapDeps {
  fetch: FetchLike;
  /** The bootstrap file, normally `https://data.iana.org/rdap/dns.json`. */
  url: URL;
  /** Budget for fetching the file, in milliseconds. */
  timeoutMs: number;
  now: () => Date;
  /** Answers other instances share; default: none beyond this process. */
  shared?: SharedAnswers;
}

/** Creates the bootstrap lookup; the file is fetched lazily on first use. */
export function createRdapBootstrap(deps: RdapBootstrapDeps): RdapBootstrap {
  let current: { table: BootstrapTable; fetchedAtMs: number } | null = null;
  let retryAtMs = 0;
  let failed: { failure: SourceFailure; untilMs: number } | null = null;
  let inFlight: Promise<Loaded> | null = null;
  const tier: SharedTier<unknown[]> | undefined = deps.shared && {
    answers: deps.shared,
    namespace: 'rdap-bootstrap',
    // Read back as the file would be (`servicesInSlices`, then the table builder: http(s) only).
    accept: (value): value is unknown[] => Array.isArray(value),
  };

  const call = (ok: boolean, ms: number, cached: boolean): SourceCall => ({
    name: RDAP_BOOTSTRAP_SOURCE,
    url: deps.url.href,
    ok,
    ms: Math.round(ms),
    cached,
  });

  async function obtainTable(): Promise<SourceResult<{ table: BootstrapTable; call: SourceCall }>> {
    const nowMs = deps.now().getTime();
    const age = current ? nowMs - current.fetchedAtMs : Number.POSITIVE_INFINITY;
    if (
      current &&
      (age < RDAP_BOOTSTRAP_TTL_MS || (age < RDAP_BOOTSTRAP_STALE_MAX_MS && nowMs < retryAtMs))
    ) {
      return succeed({ table: current.table, call: call(true, 0, true) });
    }
    if (failed && nowMs < failed.untilMs) return fail(failed.failure);
    const joined = inFlight !== null;
    inFlight ??= loadTable(deps, tier).finally(() => {
      inFlight = null;
    });
    const { result, ms, fetchedAtMs, shared } = await inFlight;
    if (result.ok) {
      failed = null;
      if (!joined) current = { table: result.value, fetchedAtMs };
      return succeed({ table: result.value, call: call(true, joined ? 0 : ms, joined || shared) });
    }
    // A stale file beats none while IANA is unreachable; retry the refresh a little later.
    if (current && age < RDAP_BOOTSTRAP_STALE_MAX_MS) {
      retryAtMs = nowMs + RDAP_BOOTSTRAP_RETRY_MS;
      return succeed({ table: current.table, call: call(false, joined ? 0 : ms, true) });
    }
    if (!joined) {
      // Counted from the answer, not the request: a fetch that hung for its whole budget still rests.
      failed = { failure: result.failure, untilMs: deps.now().getTime() + RDAP_BOOTSTRAP_FAILURE_TTL_MS };
    }
    return fail(result.failure);
  }

  return {
    async findServer(domain) {
      const obtained = await obtainTable();
      if (!obtained.ok) return obtained;
      return succeed({ base: matchServer(obtained.value.table, domain), call: obtained.value.call });
    },
  };
}

/** The file from another instance while it is within its day, else from IANA (then offered to them). */
async function loadTable(deps: RdapBootstrapDeps, tier: SharedTier<unknown[]> | undefined): Promise<Loaded> {
  // Named by origin and path: the key may be logged, a configured URL's credentials or query not.
  const key = `${deps.url.origin}${deps.url.pathname}`;
  const remembered = tier && (await readShared(tier, key, deps.now().getTime()));
  const services = remembered && (await servicesInSlices(remembered.value));
  if (remembered && !services) tier.answers.unreadable?.(`${tier.namespace}:${key}`);
  if (remembered && services) {
    const fetchedAtMs = remembered.expiresAt - RDAP_BOOTSTRAP_TTL_MS;
    return { result: succeed(await tableInSlices(services)), ms: 0, fetchedAtMs, shared: true };
  }
  const fetchedAtMs = deps.now().getTime();
  const { result, ms } = await fetchServices(deps);
  if (!result.ok) return { result, ms, fetchedAtMs, shared: false };
  const fetched = result.value.map(([entries, urls]) => [entries, urls] as [string[], string[]]);
  if (tier)
    writeShared(
      tier,
      key,
      { value: fetched, expiresAt: fetchedAtMs + RDAP_BOOTSTRAP_TTL_MS },
      RDAP_BOOTSTRAP_TTL_MS,
    );
  return { result: succeed(await tableInSlices(fetched)), ms, fetchedAtMs, shared: false };
}

/** Longest label-wise match of `domain` against the table (RFC 9224 §4); null when none matches. */
export function matchServer(table: BootstrapTable, domain: string): URL | null {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  for (let start = 0; start < labels.length; start++) {
    const urls = table.get(labels.slice(start).join('.'));
    if (urls?.[0]) return urls[0];
  }
  return null;
}

/** Builds the lookup table from a parsed bootstrap file, dropping URLs that are not http(s). */
export function buildTable(services: Services): BootstrapTable {
  return addServices(new Map(), services);
}

function addServices(table: Map<string, URL[]>, services: Services): Map<string, URL[]> {
  for (const [entries, urls] of services) {
    const bases = urls.flatMap((text) => toBaseUrl(text) ?? []);
    // RFC 9224 §4: prefer https when a service lists several URLs.
    bases.sort((a, b) => Number(b.protocol === 'https:') - Number(a.protocol === 'https:'));
    if (bases.length === 0) continue;
    for (const entry of entries) table.set(entry.toLowerCase().replace(/\.$/, ''), bases);
  }
  return table;
}

function toBaseUrl(text: string): URL | null {
  if (!URL.canParse(text)) return null;
  const url = withoutCredentials(new URL(text));
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // RFC 9224 §3: base URLs end in `/`, so relative paths like `domain/<name>` resolve beneath them.
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** A bootstrap table obtained: from IANA (`ms` its fetch) or another instance (`shared`), as of `fetchedAtMs`. */
interface Loaded {
  result: SourceResult<BootstrapTable>;
  ms: number;
  fetchedAtMs: number;
  shared: boolean;
}

async function fetchServices(
  deps: RdapBootstrapDeps,
): Promise<{ result: SourceResult<Services>; ms: number }> {
  const response = await boundedFetch(deps.url, {
    source: RDAP_BOOTSTRAP_SOURCE,
    fetch: deps.fetch,
    timeoutMs: deps.timeoutMs,
    maxBytes: RDAP_BOOTSTRAP_MAX_BYTES,
    accept: ['application/json', 'application/rdap+json'],
  });
  if (!response.ok) return { result: response, ms: 0 };
  const { ms } = response.value;
  const json = parseJsonBody(RDAP_BOOTSTRAP_SOURCE, response.value.body);
  if (!json.ok) return { result: json, ms };
  const parsed = bootstrapSchema.safeParse(json.value);
  const services = parsed.success ? await servicesInSlices(parsed.data.services) : null;
  if (!services) return { result: fail(malformed('the bootstrap file has no valid `services` list')), ms };
  return { result: succeed(services), ms };
}

/**
 * The services of a file, each checked to be an [entries, URLs] pair, in slices (a file at its cap
 * holds tens of thousands: half a second of work in one go); null when one is not.
 */
async function servicesInSlices(services: readonly unknown[]): Promise<Services | null> {
  const checked: Services = [];
  for (let start = 0; start < services.length; start += SERVICES_PER_SLICE) {
    if (start > 0) await yieldToEventLoop();
    const slice = servicesSchema.safeParse(services.slice(start, start + SERVICES_PER_SLICE));
    if (!slice.success) return null;
    checked.push(...slice.data);
  }
  return checked;
}

/** `buildTable` in slices. */
async function tableInSlices(services: Services): Promise<BootstrapTable> {
  const table = new Map<string, URL[]>();
  for (let start = 0; start < services.length; start += SERVICES_PER_SLICE) {
    if (start > 0) await yieldToEventLoop();
    addServices(table, services.slice(start, start + SERVICES_PER_SLICE));
  }
  return table;
}

function malformed(detail: string): SourceFailure {
  return { code: 'malformed', source: RDAP_BOOTSTRAP_SOURCE, detail: `${RDAP_BOOTSTRAP_SOURCE}: ${detail}` };
}
