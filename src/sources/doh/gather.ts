/**
 * Gathers every DNS fact the dns check needs, in parallel, through the DoH client. A lookup that
 * did not happen is never reported as a missing record: its section carries the failure instead.
 */
import type { AcmeChallenge } from './records/acme-challenge.ts';
import type { CaaRecord, CaaSet } from './records/caa.ts';
import { caaClimb, relevantCaaSet } from './records/caa.ts';
import { type DmarcLookup, dmarcTreeWalk, isDmarcRecord } from './records/dmarc.ts';
import type { DnssecEvidence } from './records/dnssec.ts';
import { isSpfRecord } from './records/spf-record.ts';
import type { ValidDomain } from '../../domain/normalize.ts';
import { fail, type SourceCall, type SourceFailure, type SourceResult, succeed } from '../failure.ts';
import { type DnsAnswer, type DnsRecordType, recordsOf, txtOf } from './answer.ts';
import { DOH_SOURCE, type DohClient } from './client.ts';
import { type SpfWalk, walkSpf } from './spf-walk.ts';

/** One section's data, or the failure of a lookup it needs (a fact about the domain's DNS). */
export type DnsSection<T> = SourceResult<T>;

export interface DnsFacts {
  domain: string;
  ns: DnsSection<string[]>;
  a: DnsSection<string[]>;
  aaaa: DnsSection<string[]>;
  cname: DnsSection<string | null>;
  mx: DnsSection<{ priority: number; host: string }[]>;
  /** Every TXT string at the domain (SPF is picked out by the analysis) and the resolved tree. */
  spf: DnsSection<{ txt: string[]; walk: SpfWalk | null }>;
  /** `_dmarc.<domain>` then the DNS Tree Walk above it, longest first (RFC 9989 §4.10). */
  dmarc: DnsSection<DmarcLookup[]>;
  caa: DnsSection<CaaSet>;
  dnssec: DnsSection<DnssecEvidence>;
  mtaSts: DnsSection<string[]>;
  tlsRpt: DnsSection<string[]>;
  /** `_acme-challenge.<domain>`: its CNAME target and the TXT strings at the end of the chain. */
  acmeChallenge: DnsSection<AcmeChallenge>;
  /** TXT strings at `_validation-persist.<domain>` (DNS-PERSIST-01). */
  validationPersist: DnsSection<string[]>;
  /** One entry per resolver asked, as a result's `sources` reports it. */
  sources: SourceCall[];
}

export interface GatherOptions {
  /** Cuts the lookups still running (they then fail with `timeout`). */
  signal?: AbortSignal;
  /** Bounds the resolver health check; it should leave the check time after `signal`. */
  controlSignal?: AbortSignal;
}

/** The name asked to tell "this name fails" from "the resolvers fail": the root zone's SOA. */
export const CONTROL_QUERY = { name: '.', type: 'SOA' } as const;

/** Codes that say a name fails to resolve; any other failure is the resolvers' own trouble. */
const NAME_FAILURES: readonly SourceFailure['code'][] = ['servfail', 'timeout'];

/**
 * Runs every query for `domain` in parallel; SPF includes are resolved level by level as soon as
 * TXT arrives. A lookup that fails at both resolvers fails only the sections that need it, but
 * only when it failed as a name (SERVFAIL or timeout) and a resolver still answers the control
 * query; otherwise the resolvers are down or misbehaving and the whole gathering fails.
 */
export async function gatherDns(
  client: DohClient,
  domain: ValidDomain,
  options: GatherOptions = {},
): Promise<SourceResult<DnsFacts>> {
  const name = domain.domain;
  const organization = domain.isApex ? null : domain.registrableDomain;
  // DS is published by the parent at the delegation point, which for a subdomain is (normally)
  // the registrable domain; the DNSKEY set lives at that zone's apex.
  const zoneApex = organization ?? name;
  const gathering: Gathering = { client, options, name, zoneApex, answers: [], failures: [], bogus: false };
  const [
    a,
    aaaa,
    cname,
    ns,
    mx,
    txt,
    spfWalk,
    dmarcLevels,
    caaLevels,
    ds,
    dnskey,
    mtaSts,
    tlsRpt,
    acmeChallenge,
    validationPersist,
  ] = await askAll(gathering);
  const { answers, failures, bogus } = gathering;

  const resolverTrouble = failures.find((failure) => !NAME_FAILURES.includes(failure.code));
  if (resolverTrouble) return fail(resolverTrouble);
  const control = await gathering.control;
  if (control && !control.ok) return fail(control.failure);

  const sources = resolverCalls(client, answers, failures.length > 0);
  return succeed({
    domain: name,
    ns: map(ns, (v) => recordsOf(v, 'NS').map((r) => r.host)),
    a: map(a, (v) => recordsOf(v, 'A').map((r) => r.address)),
    aaaa: map(aaaa, (v) => recordsOf(v, 'AAAA').map((r) => r.address)),
    cname: map(cname, (v) => recordsOf(v, 'CNAME')[0]?.host ?? null),
    mx: map(mx, (v) =>
      recordsOf(v, 'MX')
        .map(({ priority, host }) => ({ priority, host }))
        .sort((left, right) => left.priority - right.priority),
    ),
    spf: both(txt, spfWalk, (txtV, walk) => ({ txt: txtOf(txtV), walk })),
    dmarc: dmarcSection(dmarcLevels),
    caa: closestCaa(caaLevels),
    dnssec: both(ds, dnskey, (dsV, dnskeyV) => ({
      ad: dnskeyV.ad || (a.ok && a.value.ad),
      ds: recordsOf(dsV, 'DS').length > 0,
      dnskey: recordsOf(dnskeyV, 'DNSKEY').length > 0,
      bogus,
    })),
    mtaSts: map(mtaSts, txtOf),
    tlsRpt: map(tlsRpt, txtOf),
    acmeChallenge: map(acmeChallenge, (v) => ({ txt: txtOf(v), cname: v.cnames[0] ?? null })),
    validationPersist: map(validationPersist, txtOf),
    sources,
  });
}

/** One gathering under way: what it asks with, and what the answers and failures were. */
interface Gathering {
  client: DohClient;
  options: GatherOptions;
  /** The domain asked about. */
  name: string;
  /** The apex of the domain's zone, where DS and DNSKEY are asked. */
  zoneApex: string;
  answers: DnsAnswer[];
  failures: SourceFailure[];
  /** The root's SOA, asked once a lookup fails: whether the resolvers still answer at all. */
  control?: Promise<SourceResult<DnsAnswer>>;
  /** A SERVFAIL of the domain's own zone that the CD bit cured: DNSSEC-bogus data. */
  bogus: boolean;
}

/** Every question of a gathering, in parallel; SPF includes follow as soon as TXT arrives. */
function askAll(gathering: Gathering) {
  const { name, zoneApex } = gathering;
  const ask = (qname: string, type: DnsRecordType) => askOnce(gathering, qname, type);
  const txtQuery = ask(name, 'TXT');
  return Promise.all([
    ask(name, 'A'),
    ask(name, 'AAAA'),
    ask(name, 'CNAME'),
    ask(name, 'NS'),
    ask(name, 'MX'),
    txtQuery,
    txtQuery.then((result) => resolveSpf(ask, name, result)),
    Promise.all(
      [name, ...dmarcTreeWalk(name)].map(async (level) => ({
        level: `_dmarc.${level}`,
        result: await ask(`_dmarc.${level}`, 'TXT'),
      })),
    ),
    Promise.all(caaClimb(name).map(async (level) => ({ level, result: await ask(level, 'CAA') }))),
    ask(zoneApex, 'DS'),
    ask(zoneApex, 'DNSKEY'),
    ask(`_mta-sts.${name}`, 'TXT'),
    ask(`_smtp._tls.${name}`, 'TXT'),
    // Renewal readiness, asked beside the rest: no round trip of its own.
    ask(`_acme-challenge.${name}`, 'TXT'),
    ask(`_validation-persist.${name}`, 'TXT'),
  ]);
}

/** One question; a SERVFAIL that the CD bit cures is DNSSEC-bogus data, kept and flagged. */
async function askOnce(
  gathering: Gathering,
  qname: string,
  type: DnsRecordType,
): Promise<SourceResult<DnsAnswer>> {
  const { client, options, name, zoneApex } = gathering;
  const query = (cd: boolean) => client.query(qname, type, { cd, signal: options.signal, subject: name });
  const first = await query(false);
  if (first.ok || first.failure.code !== 'servfail') return record(gathering, first);
  const unchecked = await query(true);
  if (!unchecked.ok) return record(gathering, first);
  // Only the domain's own zone decides its status; a broken third-party SPF include does not.
  gathering.bogus ||= qname === zoneApex || qname.endsWith(`.${zoneApex}`);
  return record(gathering, unchecked);
}

function record(gathering: Gathering, result: SourceResult<DnsAnswer>): SourceResult<DnsAnswer> {
  if (result.ok) gathering.answers.push(result.value);
  else {
    gathering.failures.push(result.failure);
    // The health check starts with the first failure, so its answer is ready when needed.
    gathering.control ??= gathering.client.query(CONTROL_QUERY.name, CONTROL_QUERY.type, {
      fresh: true,
      signal: gathering.options.controlSignal,
    });
  }
  return result;
}

/**
 * The DMARC lookups, closest first. Receivers decide how to handle DNS errors in the Tree Walk
 * (RFC 9989 §4.10.1); a failed name matters here only when no closer name has a DMARC record,
 * like a failed CAA level (the walk is then reported up to the failure).
 */
function dmarcSection(levels: { level: string; result: SourceResult<DnsAnswer> }[]): DnsFacts['dmarc'] {
  const lookups: DmarcLookup[] = [];
  for (const { level, result } of levels) {
    if (!result.ok)
      return lookups.some((lookup) => lookup.txt.some(isDmarcRecord)) ? succeed(lookups) : result;
    lookups.push({ name: level, txt: txtOf(result.value) });
  }
  return succeed(lookups);
}

/** Walks the SPF tree when the domain publishes exactly one SPF record; otherwise null. */
async function resolveSpf(
  ask: (name: string, type: DnsRecordType) => Promise<SourceResult<DnsAnswer>>,
  name: string,
  txt: SourceResult<DnsAnswer>,
): Promise<SourceResult<SpfWalk | null>> {
  if (!txt.ok) return succeed(null);
  const records = txtOf(txt.value).filter(isSpfRecord);
  if (records.length !== 1 || records[0] === undefined) return succeed(null);
  return walkSpf(ask, name, records[0]);
}

/**
 * RFC 8659 §3: the closest name with a non-empty CAA set wins. A failed level only matters when
 * no closer level already answered with records.
 */
function closestCaa(levels: { level: string; result: SourceResult<DnsAnswer> }[]): SourceResult<CaaSet> {
  const answered: { name: string; records: CaaRecord[] }[] = [];
  for (const { level, result } of levels) {
    if (!result.ok) return fail(result.failure);
    const records = recordsOf(result.value, 'CAA').map(({ flags, tag, value }) => ({ flags, tag, value }));
    answered.push({ name: level, records });
    if (records.length > 0) break;
  }
  return succeed(relevantCaaSet(answered));
}

/**
 * One entry per resolver: every exchange behind the answers (a primary that failed or lost to the
 * hedged fallback is reported not ok), and both resolvers not ok when a lookup failed at both.
 */
function resolverCalls(client: DohClient, answers: readonly DnsAnswer[], failed: boolean): SourceCall[] {
  const calls = new Map<string, SourceCall>();
  const add = (url: string, ok: boolean, ms: number, cached: boolean, skipped = false) => {
    const seen = calls.get(url);
    const call: SourceCall = {
      name: DOH_SOURCE,
      url,
      ok: (seen?.ok ?? true) && ok,
      // The queries run in parallel, so the slowest one approximates the wall time.
      ms: Math.max(seen?.ms ?? 0, Math.round(ms)),
      cached: (seen?.cached ?? true) && cached,
    };
    // Skipped only when no question of the check reached it.
    if (skipped && (seen === undefined || seen.skipped)) call.skipped = true;
    calls.set(url, call);
  };
  for (const answer of answers) {
    if (answer.cached) add(answer.resolver, true, 0, true);
    for (const attempt of answer.attempts) {
      add(attempt.resolver, attempt.ok, attempt.ms, false, attempt.skipped);
    }
  }
  if (failed) for (const url of [client.primaryUrl, client.fallbackUrl]) add(url.href, false, 0, false);
  const order = [client.primaryUrl.href, client.fallbackUrl.href];
  return [...calls.values()].sort((left, right) => order.indexOf(left.url) - order.indexOf(right.url));
}

function map<T, U>(result: SourceResult<T>, transform: (value: T) => U): SourceResult<U> {
  return result.ok ? succeed(transform(result.value)) : result;
}

function both<T, U, V>(
  left: SourceResult<T>,
  right: SourceResult<U>,
  combine: (left: T, right: U) => V,
): SourceResult<V> {
  if (!left.ok) return left;
  if (!right.ok) return right;
  return succeed(combine(left.value, right.value));
}
