/**
 * crt.sh JSON client: exact-name and covering-wildcard identity searches, parsed with zod, with
 * each precertificate + certificate pair merged into one issuance.
 */
import { z } from 'zod';
import { boundedFetch, type FetchLike } from '../bounded-fetch.ts';
import { type SourceResult, succeed } from '../failure.ts';
import {
  canonicalSerial,
  coveringWildcard,
  type Issuance,
  issuanceCovers,
  namesNormalizer,
} from './issuance.ts';
import { issuerFriendlyName } from './issuer-name.ts';
import { forEachInSlices } from '../json-array-slices.ts';
import { parseJsonArrayReply } from './parse-reply.ts';

export const CRTSH_SOURCE = 'crt.sh';
/** Largest crt.sh body accepted, in bytes; big domains produce huge (silently truncated) answers. */
export const CRTSH_MAX_BYTES = 5 * 1024 * 1024;

/**
 * crt.sh's marks for a certificate whose issuer is in none of its CA records: such a row chains to
 * no known CA, trusted or not (one seen in the wild: never logged, valid for ten years).
 */
const UNKNOWN_ISSUER_CA_ID = -1;
const UNKNOWN_ISSUER_NAME = 'Issuer Not Found';

/** crt.sh prints `YYYY-MM-DDTHH:MM:SS[.f…]` with no zone; the values are UTC. */
const zonelessUtc = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/, 'a zone-less timestamp')
  .transform((value) => new Date(`${value}Z`))
  .refine((date) => !Number.isNaN(date.getTime()), 'a real date');

const crtshRowSchema = z.object({
  issuer_ca_id: z.number().int(),
  issuer_name: z.string(),
  // Absent for `CN=` searches and null for certificates without a subject CN (LE `tlsserver`).
  common_name: z.string().nullable().optional(),
  // Only the identities that matched the query, `\n`-joined; not the full SAN list.
  name_value: z.string(),
  id: z.number().int(),
  entry_timestamp: zonelessUtc.nullable(),
  not_before: zonelessUtc,
  not_after: zonelessUtc,
  serial_number: z.string().regex(/^[0-9a-fA-F]+$/, 'a hex serial'),
});
type CrtshRow = z.infer<typeof crtshRowSchema>;

export interface CrtshCallOptions {
  fetch: FetchLike;
  /** crt.sh base URL (`CRTSH_URL`). */
  baseUrl: URL;
  /** Budget for the whole call in milliseconds. */
  timeoutMs: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

/** The search URL for one exact identity: `Identity=<name>&match==` (the default ILIKE is a substring match). */
export function crtshSearchUrl(baseUrl: URL, name: string): URL {
  const url = new URL(baseUrl.href.endsWith('/') ? baseUrl.href : `${baseUrl.href}/`);
  url.searchParams.set('Identity', name);
  url.searchParams.set('match', '=');
  url.searchParams.set('output', 'json');
  return url;
}

/**
 * Issuances for `domain` from crt.sh, newest first, expired ones included: one exact search for
 * the name and one for its covering wildcard, run together; either failing fails the call. Rows
 * of an unknown issuer are dropped.
 */
export async function fetchCrtshIssuances(
  domain: string,
  options: CrtshCallOptions,
): Promise<SourceResult<Issuance[]>> {
  const names = [domain, coveringWildcard(domain)].filter((name): name is string => name !== null);
  const sibling = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, sibling.signal]) : sibling.signal;
  const merged = new IssuanceMerger();
  const replies = await Promise.all(
    names.map(async (name) => {
      const reply = await searchIdentity(crtshSearchUrl(options.baseUrl, name), { ...options, signal });
      // One half failing decides the call, so stop waiting for the other half.
      if (!reply.ok) sibling.abort();
      return reply;
    }),
  );
  for (const reply of replies) if (!reply.ok) return reply;
  for (const reply of replies) {
    if (reply.ok) await forEachInSlices(reply.value, (row) => isUnknownIssuer(row) || merged.add(row));
  }
  return succeed((await merged.issuances()).filter((issuance) => issuanceCovers(issuance, domain)));
}

/** A name no certificate holds: the search crt.sh's breaker asks as its control question. */
export const CRTSH_CONTROL_NAME = 'breaker-control.website-checks.invalid';

/** The crt.sh breaker's control: does crt.sh answer a search that matches nothing? */
export async function crtshAnswers(options: CrtshCallOptions): Promise<boolean> {
  return (await searchIdentity(crtshSearchUrl(options.baseUrl, CRTSH_CONTROL_NAME), options)).ok;
}

/** A row whose issuer crt.sh could not find: never a certificate a browser would accept. */
function isUnknownIssuer(row: CrtshRow): boolean {
  return row.issuer_ca_id <= UNKNOWN_ISSUER_CA_ID || row.issuer_name === UNKNOWN_ISSUER_NAME;
}

async function searchIdentity(url: URL, options: CrtshCallOptions): Promise<SourceResult<CrtshRow[]>> {
  const response = await boundedFetch(url, {
    source: CRTSH_SOURCE,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes ?? CRTSH_MAX_BYTES,
    accept: ['application/json'],
    signal: options.signal,
  });
  if (!response.ok) return response;
  return parseJsonArrayReply(CRTSH_SOURCE, response.value.body, crtshRowSchema);
}

/**
 * Merges rows of one issuance (precert + cert share issuer and serial), in time linear in the
 * rows: one issuance's names are gathered raw and normalized once, when the issuances are read
 * (normalizing them again at each row took seconds for 4,000 rows of one serial).
 */
class IssuanceMerger {
  readonly #byIssuance = new Map<string, { issuance: Issuance; names: string[] }>();
  readonly #issuerNames = new Map<string, string>();

  add(row: CrtshRow): void {
    const serial = canonicalSerial(row.serial_number);
    const key = `${row.issuer_ca_id}/${serial}`;
    const seen = this.#byIssuance.get(key);
    const names = seen?.names ?? [];
    names.push(...row.name_value.split('\n'));
    if (row.common_name) names.push(row.common_name);
    if (seen) {
      const { issuance } = seen;
      issuance.loggedAt = earliest(issuance.loggedAt, row.entry_timestamp);
      // The final certificate is logged after its precertificate, so it has the higher id.
      if (row.id > Number(issuance.crtshId)) issuance.crtshId = String(row.id);
      return;
    }
    let issuer = this.#issuerNames.get(row.issuer_name);
    if (issuer === undefined) {
      issuer = issuerFriendlyName(row.issuer_name);
      this.#issuerNames.set(row.issuer_name, issuer);
    }
    const issuance: Issuance = {
      issuer,
      issuerDn: row.issuer_name,
      serial,
      notBefore: row.not_before,
      notAfter: row.not_after,
      names: [],
      loggedAt: row.entry_timestamp,
      crtshId: String(row.id),
      der: null,
    };
    this.#byIssuance.set(key, { issuance, names });
  }

  /** The merged issuances, newest first. */
  async issuances(): Promise<Issuance[]> {
    const normalize = namesNormalizer();
    const issuances: Issuance[] = [];
    for (const { issuance, names } of this.#byIssuance.values())
      issuances.push({ ...issuance, names: await normalize(names) });
    return issuances.sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime());
  }
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a || !b) return a ?? b;
  return a.getTime() <= b.getTime() ? a : b;
}
