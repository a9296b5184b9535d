/**
 * Resolves an SPF record's include/redirect tree the way a receiver evaluates it (RFC 7208 §4.6.4):
 * counting DNS-querying terms and void lookups in evaluation order, stopping at the limits, never
 * looping. The answers are fetched first level by level, every lookup of one depth in parallel;
 * the counting then runs depth-first over those answers, so the counts are a receiver's exactly.
 */
import { hasMacro, isSpfRecord, parseSpf, type SpfMechanism } from './records/spf-record.ts';
import { fail, type SourceResult, succeed } from '../failure.ts';
import { type DnsAnswer, type DnsRecordType, recordsOf, txtOf } from './answer.ts';

export interface SpfProblem {
  code: 'too_many_lookups' | 'too_many_void_lookups' | 'include_loop' | 'include_missing' | 'syntax';
  detail: string;
  /** The term or record text that caused it. */
  evidence: string;
}

/** What resolving the include/redirect tree found (see `walkSpf`). */
export interface SpfWalk {
  /** DNS-querying terms counted, including the one that passed the limit. */
  lookups: number;
  voidLookups: number;
  /** Include and redirect targets resolved, in evaluation order. */
  includes: string[];
  /** The effective `all` term, following redirect when the record has none. */
  all: string | null;
  problems: SpfProblem[];
}

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
  resolve: SpfLookup,
  domain: string,
  record: string,
): Promise<SourceResult<SpfWalk>> {
  const lookup = memoize(resolve);
  await prefetch(lookup, domain, record);
  const walker: Walker = {
    lookup,
    walk: { lookups: 0, voidLookups: 0, includes: [], all: null, problems: [] },
    stopped: false,
  };
  const result = await evaluate(walker, domain.toLowerCase(), record, []);
  if (!result.ok) return result;
  walker.walk.all = result.value;
  return succeed(walker.walk);
}

/** A walk under way: its answers, what it has counted, and whether a limit or problem stopped it. */
interface Walker {
  lookup: SpfLookup;
  walk: SpfWalk;
  stopped: boolean;
}

function stop(walker: Walker, problem: SpfProblem): void {
  walker.walk.problems.push(problem);
  walker.stopped = true;
}

/** Counts a DNS-querying term; false once the walk is stopped. */
function countLookup(walker: Walker, evidence: string): boolean {
  walker.walk.lookups += 1;
  if (walker.walk.lookups > SPF_MAX_LOOKUPS) {
    stop(walker, { code: 'too_many_lookups', detail: `more than ${SPF_MAX_LOOKUPS} DNS lookups`, evidence });
  }
  return !walker.stopped;
}

function countVoid(walker: Walker, answer: DnsAnswer, evidence: string): void {
  if (!isVoid(answer)) return;
  walker.walk.voidLookups += 1;
  if (walker.walk.voidLookups > SPF_MAX_VOID_LOOKUPS) {
    stop(walker, {
      code: 'too_many_void_lookups',
      detail: `more than ${SPF_MAX_VOID_LOOKUPS} void lookups`,
      evidence,
    });
  }
}

/** Fetches the single SPF record of an include/redirect target, or records why there is none. */
async function targetRecord(
  walker: Walker,
  target: string,
  evidence: string,
): Promise<SourceResult<string | null>> {
  const answer = await walker.lookup(target, 'TXT');
  if (!answer.ok) return answer;
  countVoid(walker, answer.value, evidence);
  const records = txtOf(answer.value).filter(isSpfRecord);
  if (records.length === 1) return succeed(records[0] ?? null);
  const detail =
    records.length === 0 ? `${target} publishes no SPF record` : `${target} publishes several SPF records`;
  if (!walker.stopped) stop(walker, { code: 'include_missing', detail, evidence });
  return succeed(null);
}

/** Evaluates one record; returns its effective `all` term (through redirect), or a failure. */
async function evaluate(
  walker: Walker,
  owner: string,
  text: string,
  path: readonly string[],
): Promise<SourceResult<string | null>> {
  const parsed = parseSpf(text);
  // RFC 7208 §4.6: a record with a syntax error is a permerror before any term is evaluated.
  // The domain's own record is reported by the assessment; an included one stops the walk here.
  if (parsed.errors.length > 0) {
    if (path.length > 0)
      stop(walker, { code: 'syntax', detail: `${owner}: ${parsed.errors.join('; ')}`, evidence: text });
    return succeed(parsed.all);
  }
  const chain = [...path, owner];
  for (const term of parsed.terms) {
    if (walker.stopped) return succeed(parsed.all);
    if (term.kind !== 'mechanism') continue;
    const failure = await evaluateMechanism(walker, owner, term, chain);
    if (failure) return failure;
  }
  // RFC 7208 §6.1: redirect is ignored when the record has an `all` mechanism.
  if (walker.stopped || parsed.all || !parsed.redirect) return succeed(parsed.all);
  const evidence = `redirect=${parsed.redirect}`;
  if (!countLookup(walker, evidence) || hasMacro(parsed.redirect)) return succeed(null);
  return follow(walker, parsed.redirect, chain, evidence);
}

/** Resolves an include or redirect target and evaluates its record. */
async function follow(
  walker: Walker,
  target: string,
  chain: readonly string[],
  evidence: string,
): Promise<SourceResult<string | null>> {
  const name = target.toLowerCase().replace(/\.$/, '');
  if (chain.includes(name)) {
    stop(walker, {
      code: 'include_loop',
      detail: `${name} is reached again through ${chain.join(' → ')}`,
      evidence,
    });
    return succeed(null);
  }
  walker.walk.includes.push(name);
  const next = await targetRecord(walker, name, evidence);
  if (!next.ok) return next;
  return next.value === null ? succeed(null) : evaluate(walker, name, next.value, chain);
}

async function evaluateMechanism(
  walker: Walker,
  owner: string,
  term: SpfMechanism,
  chain: readonly string[],
) {
  if (term.name === 'all' || term.name === 'ip4' || term.name === 'ip6') return null;
  if (!countLookup(walker, term.text)) return null;
  const target = term.target ?? owner;
  // ptr and macro terms need the connecting client's address; they count but are not resolved.
  if (term.name === 'ptr' || hasMacro(target)) return null;
  if (term.name === 'include') {
    const result = await follow(walker, target, chain, term.text);
    return result.ok ? null : fail(result.failure);
  }
  const type = lookupType(term.name);
  const answer = await walker.lookup(target, type);
  if (!answer.ok) return fail(answer.failure);
  if (term.name === 'a' && isVoid(answer.value)) {
    // An IPv6-only host is not void for `a`: the AAAA lookup settles it (RFC 7208 §5.3).
    const aaaa = await walker.lookup(target, 'AAAA');
    if (!aaaa.ok) return fail(aaaa.failure);
    countVoid(walker, aaaa.value, term.text);
    return null;
  }
  countVoid(walker, answer.value, term.text);
  if (recordsOf(answer.value, 'MX').length > SPF_MAX_MX_HOSTS && !walker.stopped) {
    stop(walker, {
      code: 'syntax',
      detail: `${target} has more than ${SPF_MAX_MX_HOSTS} MX hosts`,
      evidence: term.text,
    });
  }
  return null;
}

/** The record type a resolvable a, mx or exists term asks for first. */
function lookupType(name: SpfMechanism['name']): DnsRecordType {
  return name === 'mx' ? 'MX' : 'A';
}

/** One promise per name and type for the whole walk. */
function memoize(resolve: SpfLookup): SpfLookup {
  const answers = new Map<string, Promise<SourceResult<DnsAnswer>>>();
  return (name, type) => {
    const key = `${name.toLowerCase().replace(/\.$/, '')}|${type}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = resolve(name, type);
      answers.set(key, answer);
    }
    return answer;
  };
}

/**
 * Starts every lookup the evaluation will make, breadth first: each round replays the evaluation
 * over the records known so far (an include not yet fetched counts as its one lookup) and fetches,
 * all at once, what that replay reaches within the lookup limit, so a term past the limit is never
 * resolved. Failures are left for the evaluation, which decides in receiver order whether it
 * reaches them.
 */
async function prefetch(lookup: SpfLookup, domain: string, record: string): Promise<void> {
  const records = new Map<string, string | null>([[domain.toLowerCase(), record]]);
  for (;;) {
    const unknown = new Set<string>();
    let lookups = 0;
    const visit = (owner: string, text: string, chain: readonly string[]): boolean => {
      const parsed = parseSpf(text);
      if (parsed.errors.length > 0) return false;
      // A redirect (ignored when there is an `all`) is followed like an include, after the terms.
      const steps = [
        ...parsed.terms.flatMap((term) =>
          term.kind === 'mechanism' && !['all', 'ip4', 'ip6'].includes(term.name)
            ? [{ name: term.name, target: term.target ?? owner }]
            : [],
        ),
        ...(parsed.all === null && parsed.redirect !== null
          ? [{ name: 'include' as const, target: parsed.redirect }]
          : []),
      ];
      for (const step of steps) {
        lookups += 1;
        if (lookups > SPF_MAX_LOOKUPS) return false;
        const target = step.target.toLowerCase().replace(/\.$/, '');
        if (step.name === 'ptr' || hasMacro(target)) continue;
        if (step.name !== 'include') {
          void lookup(target, lookupType(step.name));
          if (step.name === 'a') void lookup(target, 'AAAA');
          continue;
        }
        const next = records.get(target);
        if (next === undefined) unknown.add(target);
        // A loop or a target without exactly one record stops the evaluation there.
        else if (next === null || target === owner || chain.includes(target)) return false;
        else if (!visit(target, next, [...chain, owner])) return false;
      }
      return true;
    };
    visit(domain.toLowerCase(), record, []);
    if (unknown.size === 0) return;
    await Promise.all(
      [...unknown].map(async (name) => {
        const answer = await lookup(name, 'TXT');
        const found = answer.ok ? txtOf(answer.value).filter(isSpfRecord) : [];
        records.set(name, found.length === 1 ? (found[0] ?? null) : null);
      }),
    );
  }
}
