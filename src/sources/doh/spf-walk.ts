/**
 * Resolves an SPF record's include/redirect tree the way a receiver evaluates it (RFC 7208 §4.6.4):
 * counting DNS-querying terms and void lookups WHILE resolving, stopping at the limits, never looping.
 */
import type { SpfProblem, SpfWalk } from '../../checks/dns/spf.ts';
import { hasMacro, isSpfRecord, parseSpf, type SpfMechanism } from '../../checks/dns/spf-record.ts';
import { fail, type SourceResult, succeed } from '../failure.ts';
import { type DnsAnswer, type DnsRecordType, recordsOf, txtOf } from './answer.ts';

/** One DNS question, with whatever resolver policy the caller applies (fallback, CD retry). */
export type SpfLookup = (name: string, type: DnsRecordType) => Promise<SourceResult<DnsAnswer>>;

/** RFC 7208 §4.6.4: at most 10 terms that cause DNS queries. */
export const SPF_MAX_LOOKUPS = 10;
/** RFC 7208 §4.6.4: at most 2 lookups that answer NXDOMAIN or no records. */
export const SPF_MAX_VOID_LOOKUPS = 2;
/** RFC 7208 §4.6.4: an `mx` term may name at most 10 mail exchangers. */
export const SPF_MAX_MX_HOSTS = 10;

const isVoid = (answer: DnsAnswer) => answer.records.length === 0;

/**
 * Walks `record` (published at `domain`). A resolver failure anywhere is returned as a failure: a
 * lookup that did not happen must never be read as a missing or void record.
 */
export async function walkSpf(
  lookup: SpfLookup,
  domain: string,
  record: string,
): Promise<SourceResult<SpfWalk>> {
  const walk: SpfWalk = { lookups: 0, voidLookups: 0, includes: [], all: null, problems: [] };
  let stopped = false;
  const stop = (problem: SpfProblem) => {
    walk.problems.push(problem);
    stopped = true;
  };
  const countLookup = (evidence: string) => {
    walk.lookups += 1;
    if (walk.lookups > SPF_MAX_LOOKUPS) {
      stop({ code: 'too_many_lookups', detail: `more than ${SPF_MAX_LOOKUPS} DNS lookups`, evidence });
    }
    return !stopped;
  };
  const countVoid = (answer: DnsAnswer, evidence: string) => {
    if (!isVoid(answer)) return;
    walk.voidLookups += 1;
    if (walk.voidLookups > SPF_MAX_VOID_LOOKUPS) {
      stop({
        code: 'too_many_void_lookups',
        detail: `more than ${SPF_MAX_VOID_LOOKUPS} void lookups`,
        evidence,
      });
    }
  };

  /** Fetches the single SPF record of an include/redirect target, or records why there is none. */
  async function targetRecord(target: string, evidence: string): Promise<SourceResult<string | null>> {
    const answer = await lookup(target, 'TXT');
    if (!answer.ok) return answer;
    countVoid(answer.value, evidence);
    const records = txtOf(answer.value).filter(isSpfRecord);
    if (records.length === 1) return succeed(records[0] ?? null);
    const detail =
      records.length === 0 ? `${target} publishes no SPF record` : `${target} publishes several SPF records`;
    if (!stopped) stop({ code: 'include_missing', detail, evidence });
    return succeed(null);
  }

  /** Evaluates one record; returns its effective `all` term (through redirect), or a failure. */
  async function evaluate(
    owner: string,
    text: string,
    path: readonly string[],
  ): Promise<SourceResult<string | null>> {
    const parsed = parseSpf(text);
    if (path.length > 0 && parsed.errors.length > 0) {
      stop({ code: 'syntax', detail: `${owner}: ${parsed.errors.join('; ')}`, evidence: text });
    }
    const chain = [...path, owner];
    for (const term of parsed.terms) {
      if (stopped) return succeed(parsed.all);
      if (term.kind !== 'mechanism') continue;
      const failure = await evaluateMechanism(owner, term, chain);
      if (failure) return failure;
    }
    // RFC 7208 §6.1: redirect is ignored when the record has an `all` mechanism.
    if (stopped || parsed.all || !parsed.redirect) return succeed(parsed.all);
    const evidence = `redirect=${parsed.redirect}`;
    if (!countLookup(evidence) || hasMacro(parsed.redirect)) return succeed(null);
    return follow(parsed.redirect, chain, evidence);
  }

  /** Resolves an include or redirect target and evaluates its record. */
  async function follow(target: string, chain: readonly string[], evidence: string) {
    const name = target.toLowerCase().replace(/\.$/, '');
    if (chain.includes(name)) {
      stop({
        code: 'include_loop',
        detail: `${name} is reached again through ${chain.join(' → ')}`,
        evidence,
      });
      return succeed(null);
    }
    walk.includes.push(name);
    const next = await targetRecord(name, evidence);
    if (!next.ok) return next;
    return next.value === null ? succeed(null) : evaluate(name, next.value, chain);
  }

  async function evaluateMechanism(owner: string, term: SpfMechanism, chain: readonly string[]) {
    if (term.name === 'all' || term.name === 'ip4' || term.name === 'ip6') return null;
    if (!countLookup(term.text)) return null;
    const target = term.target ?? owner;
    // ptr and macro terms need the connecting client's address; they count but are not resolved.
    if (term.name === 'ptr' || hasMacro(target)) return null;
    if (term.name === 'include') {
      const result = await follow(target, chain, term.text);
      return result.ok ? null : fail(result.failure);
    }
    const type: DnsRecordType = term.name === 'mx' ? 'MX' : 'A';
    const answer = await lookup(target, type);
    if (!answer.ok) return fail(answer.failure);
    if (type === 'A' && isVoid(answer.value)) {
      // An IPv6-only host is not void: the AAAA lookup settles it (RFC 7208 §5.3).
      const aaaa = await lookup(target, 'AAAA');
      if (!aaaa.ok) return fail(aaaa.failure);
      countVoid(aaaa.value, term.text);
      return null;
    }
    countVoid(answer.value, term.text);
    if (recordsOf(answer.value, 'MX').length > SPF_MAX_MX_HOSTS && !stopped) {
      stop({
        code: 'syntax',
        detail: `${target} has more than ${SPF_MAX_MX_HOSTS} MX hosts`,
        evidence: term.text,
      });
    }
    return null;
  }

  const result = await evaluate(domain.toLowerCase(), record, []);
  if (!result.ok) return result;
  walk.all = result.value;
  return succeed(walk);
}
