/**
 * Gathers every DNS fact the dns check needs, in parallel, through the DoH client. A resolver
 * failure on any required query fails the whole gathering: a lookup that did not happen is never
 * reported as a missing record.
 */
import type { CaaRecord, CaaSet } from '../../checks/dns/caa.ts';
import { caaClimb, relevantCaaSet } from '../../checks/dns/caa.ts';
import type { DmarcLookup } from '../../checks/dns/dmarc.ts';
import type { DnssecEvidence } from '../../checks/dns/dnssec.ts';
import type { SpfWalk } from '../../checks/dns/spf.ts';
import { isSpfRecord } from '../../checks/dns/spf-record.ts';
import type { ValidDomain } from '../../domain/normalize.ts';
import { fail, type SourceCall, type SourceResult, succeed } from '../failure.ts';
import { type DnsAnswer, type DnsRecordType, recordsOf, txtOf } from './answer.ts';
import { DOH_SOURCE, type DohClient } from './client.ts';
import { walkSpf } from './spf-walk.ts';

export interface DnsFacts {
  domain: string;
  ns: string[];
  a: string[];
  aaaa: string[];
  cname: string | null;
  mx: { priority: number; host: string }[];
  /** Every TXT string at the domain (SPF is picked out by the analysis). */
  txt: string[];
  spfWalk: SpfWalk | null;
  dmarcAtDomain: DmarcLookup;
  /** The lookup at the organizational domain; null when the domain is its own. */
  dmarcAtOrganization: DmarcLookup | null;
  caa: CaaSet;
  dnssec: DnssecEvidence;
  mtaSts: string[];
  tlsRpt: string[];
  /** One entry per resolver that answered, as a result's `sources` reports it. */
  sources: SourceCall[];
}

/** Runs every query for `domain` in parallel; SPF includes are resolved as soon as TXT arrives. */
export async function gatherDns(client: DohClient, domain: ValidDomain): Promise<SourceResult<DnsFacts>> {
  const name = domain.domain;
  const answers: DnsAnswer[] = [];
  let bogus = false;
  const organization = domain.isApex ? null : domain.registrableDomain;
  // DS is published by the parent at the delegation point, which for a subdomain is (normally)
  // the registrable domain; the DNSKEY set lives at that zone's apex.
  const zoneApex = organization ?? name;

  /** One question; a SERVFAIL that the CD bit cures is DNSSEC-bogus data, kept and flagged. */
  async function ask(qname: string, type: DnsRecordType): Promise<SourceResult<DnsAnswer>> {
    const first = await client.query(qname, type);
    if (first.ok || first.failure.code !== 'servfail') return record(first);
    const unchecked = await client.query(qname, type, { cd: true });
    if (!unchecked.ok) return first;
    // Only the domain's own zone decides its status; a broken third-party SPF include does not.
    bogus ||= qname === zoneApex || qname.endsWith(`.${zoneApex}`);
    return record(unchecked);
  }
  function record(result: SourceResult<DnsAnswer>): SourceResult<DnsAnswer> {
    if (result.ok) answers.push(result.value);
    return result;
  }

  const txtQuery = ask(name, 'TXT');
  const [a, aaaa, cname, ns, mx, txt, spfWalk, dmarc, orgDmarc, caaLevels, ds, dnskey, mtaSts, tlsRpt] =
    await Promise.all([
      ask(name, 'A'),
      ask(name, 'AAAA'),
      ask(name, 'CNAME'),
      ask(name, 'NS'),
      ask(name, 'MX'),
      txtQuery,
      txtQuery.then((result) => resolveSpf(ask, name, result)),
      ask(`_dmarc.${name}`, 'TXT'),
      organization ? ask(`_dmarc.${organization}`, 'TXT') : succeed(null),
      Promise.all(caaClimb(name).map(async (level) => ({ level, result: await ask(level, 'CAA') }))),
      ask(zoneApex, 'DS'),
      ask(zoneApex, 'DNSKEY'),
      ask(`_mta-sts.${name}`, 'TXT'),
      ask(`_smtp._tls.${name}`, 'TXT'),
    ]);

  const caa = closestCaa(caaLevels);
  const all = allOk([
    a,
    aaaa,
    cname,
    ns,
    mx,
    txt,
    spfWalk,
    dmarc,
    orgDmarc,
    ds,
    dnskey,
    mtaSts,
    tlsRpt,
    caa,
  ] as const);
  if (!all.ok) return all;
  const [aV, aaaaV, cnameV, nsV, mxV, txtV, walk, dmarcV, orgDmarcV, dsV, dnskeyV, mtaStsV, tlsRptV, caaV] =
    all.value;

  return succeed({
    domain: name,
    ns: recordsOf(nsV, 'NS').map((record) => record.host),
    a: recordsOf(aV, 'A').map((record) => record.address),
    aaaa: recordsOf(aaaaV, 'AAAA').map((record) => record.address),
    cname: recordsOf(cnameV, 'CNAME')[0]?.host ?? null,
    mx: recordsOf(mxV, 'MX')
      .map(({ priority, host }) => ({ priority, host }))
      .sort((left, right) => left.priority - right.priority),
    txt: txtOf(txtV),
    spfWalk: walk,
    dmarcAtDomain: { name: `_dmarc.${name}`, txt: txtOf(dmarcV) },
    dmarcAtOrganization: orgDmarcV ? { name: `_dmarc.${organization}`, txt: txtOf(orgDmarcV) } : null,
    caa: caaV,
    dnssec: {
      ad: dnskeyV.ad || aV.ad,
      ds: recordsOf(dsV, 'DS').length > 0,
      dnskey: recordsOf(dnskeyV, 'DNSKEY').length > 0,
      bogus,
    },
    mtaSts: txtOf(mtaStsV),
    tlsRpt: txtOf(tlsRptV),
    sources: resolverCalls(answers),
  });
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

/** Groups the answers by the resolver URL that gave them. */
function resolverCalls(answers: readonly DnsAnswer[]): SourceCall[] {
  const byResolver = new Map<string, DnsAnswer[]>();
  for (const answer of answers)
    byResolver.set(answer.resolver, [...(byResolver.get(answer.resolver) ?? []), answer]);
  return [...byResolver].map(([url, group]) => ({
    name: DOH_SOURCE,
    url,
    ok: true,
    // The queries run in parallel, so the slowest one approximates the wall time.
    ms: Math.round(Math.max(...group.map((answer) => answer.ms))),
    cached: group.every((answer) => answer.cached),
  }));
}

type Values<T extends readonly SourceResult<unknown>[]> = {
  -readonly [K in keyof T]: T[K] extends SourceResult<infer V> ? V : never;
};

/** All values when every result succeeded, else the first failure. */
function allOk<const T extends readonly SourceResult<unknown>[]>(results: T): SourceResult<Values<T>> {
  const failed = results.find((result) => !result.ok);
  if (failed && !failed.ok) return fail(failed.failure);
  return succeed(results.map((result) => (result.ok ? result.value : null)) as Values<T>);
}
