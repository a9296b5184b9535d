/**
 * The openspf RFC 7208 test suite (test/fixtures/rfc7208, pyspf 1042e9e) run through the product:
 * each scenario's zone data is served by two loopback RFC 8484 resolvers, the REAL DoH client and
 * dns runner check the identity's domain, and the SPF verdict the result implies is compared with
 * the result the suite expects.
 *
 * The dns check has no client IP, so it cannot say pass, fail, softfail or neutral; what it can
 * say, and what these cases check, is the part of the verdict that holds for every IP:
 *
 * | suite result                     | the dns result                                             |
 * | -------------------------------- | ---------------------------------------------------------- |
 * | `none`                           | `spf: null` with `spf.missing`                             |
 * | `permerror`                      | a permanent-error finding (`PERMERROR_FINDINGS`)           |
 * | `temperror`                      | `spf: { error }` (the lookup failed at both resolvers)     |
 * | `pass`/`fail`/`softfail`/`neutral` | an SPF record with none of the above: it evaluates       |
 *
 * A case is not applicable when its identity is one the API refuses with 400 before any lookup (a
 * label over 63 octets, an empty label, a single label, an address literal), or when its verdict
 * depends on the client IP (`IP_DEPENDENT`: what the product reports instead is still asserted).
 * Where the suite allows several results, the one the product reports is fixed in
 * `SEVERAL_RESULTS`. The same tables are in the README (DNS part).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { DnsResult } from '../../src/checks/dns/result.ts';
import { createDnsRunner } from '../../src/checks/dns/run.ts';
import type { RunOutcome } from '../../src/checks/outcome.ts';
import { normalizeDomain } from '../../src/domain/normalize.ts';
import { createDohClient } from '../../src/sources/doh/client.ts';
import { type DnsZoneRecords, type FakeDoh, startDoh } from '../world/doh.ts';
import type { Scenario } from '../world/scenario.ts';

type SuiteResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';
/** What a dns result can say about SPF without a client IP. */
type Verdict = 'none' | 'permerror' | 'temperror' | 'evaluates' | 'no result';

interface SuiteCase {
  spec: string;
  host: string;
  mailfrom: string;
  helo: string;
  result: SuiteResult | SuiteResult[];
}
interface SuiteScenario {
  description: string;
  tests: Record<string, SuiteCase>;
  zonedata: Record<string, (string | Record<string, unknown>)[]>;
}

/** Findings that mean a receiver gets permerror whatever the client IP. */
const PERMERROR_FINDINGS = [
  'spf.syntax',
  'spf.multiple_records',
  'spf.too_many_lookups',
  'spf.too_many_void_lookups',
  'spf.include_loop',
  'spf.include_missing',
];

/** Cases whose verdict depends on the client IP: what the product reports, and why. */
const IP_DEPENDENT: Record<string, { reports: Verdict; why: string }> = {
  'include-at-limit': {
    reports: 'permerror',
    why: 'The suite client matches ip4:1.2.3.4 after 10 lookups and passes; every client not listed there reaches the 11th lookup (mx), so the product reports spf.too_many_lookups.',
  },
};

/** Cases where the suite accepts several results: the one the product reports, and why. */
const SEVERAL_RESULTS: Record<string, { reports: SuiteResult; why: string }> = {
  multispf1: {
    reports: 'permerror',
    why: 'Two TXT SPF records are a permerror (RFC 7208 §4.5); the fail alternative only applies to SPF-type-first (RFC 4408) checkers.',
  },
  'invalid-domain-empty-label': {
    reports: 'permerror',
    why: 'A target name DNS cannot ask for (empty label) is reported as spf.syntax: receivers such as pyspf reject it.',
  },
  'invalid-domain-long': {
    reports: 'permerror',
    why: 'A target label over 63 octets is reported as spf.syntax, as for the empty label.',
  },
  'invalid-domain-long-via-macro': {
    reports: 'fail',
    why: 'The name is only too long after expanding the HELO macro, which the check cannot know: the record evaluates.',
  },
  'ptr-limit': {
    reports: 'neutral',
    why: 'ptr terms count as lookups but are not resolved without a client IP; the record evaluates.',
  },
  'p-macro-multiple': {
    reports: 'pass',
    why: 'Macro terms count as lookups but are not resolved without a client IP; the record evaluates.',
  },
};

const VERDICT_OF: Record<SuiteResult, Verdict> = {
  pass: 'evaluates',
  fail: 'evaluates',
  softfail: 'evaluates',
  neutral: 'evaluates',
  none: 'none',
  permerror: 'permerror',
  temperror: 'temperror',
};

const suite = parseAllDocuments(
  readFileSync(new URL('../fixtures/rfc7208/rfc7208-tests.yml', import.meta.url), 'utf8'),
).map((document) => document.toJS() as SuiteScenario);

const tally = { applicable: 0, agree: 0, refused: 0, ipDependent: 0 };

afterAll(() => {
  // eslint-disable-next-line no-console -- the agreement count is this suite's report
  console.log(
    `RFC 7208 suite: ${tally.agree}/${tally.applicable} applicable cases agree (not applicable: ${tally.refused} identities the API refuses, ${tally.ipDependent} IP-dependent)`,
  );
});

for (const scenario of suite) {
  describe(`RFC 7208 suite: ${scenario.description}`, () => {
    let primary: FakeDoh;
    let fallback: FakeDoh;
    beforeAll(async () => {
      const scenarios = new Map([['rfc7208.test', zoneScenario(scenario.zonedata)]]);
      [primary, fallback] = await Promise.all([startDoh(scenarios), startDoh(scenarios)]);
    });
    afterAll(async () => {
      await Promise.all([primary.close(), fallback.close()]);
    });

    for (const [name, testCase] of Object.entries(scenario.tests)) {
      const identity = testCase.mailfrom ? (testCase.mailfrom.split('@').at(-1) ?? '') : testCase.helo;
      const domain = normalizeDomain(identity);
      if (!domain.valid) {
        tally.refused += 1;
        continue;
      }
      const allowed = [testCase.result].flat();
      const ipDependent = IP_DEPENDENT[name];
      const chosen = SEVERAL_RESULTS[name]?.reports ?? allowed[0] ?? 'none';
      const expected = ipDependent?.reports ?? VERDICT_OF[chosen];
      if (ipDependent) tally.ipDependent += 1;
      else tally.applicable += 1;

      it(`${name} (RFC 7208 §${testCase.spec}): ${allowed.join(' or ')}${ipDependent ? ' for this IP only' : ''}`, async () => {
        const client = createDohClient({
          fetch: (input, init) => fetch(input, init),
          primaryUrl: primary.endpoint,
          fallbackUrl: fallback.endpoint,
          timeoutMs: 1_000,
        });
        const outcome = await createDnsRunner({ doh: client, now: () => new Date() })(domain);
        expect(allowed).toContain(chosen);
        expect(
          verdictOf(outcome),
          JSON.stringify(outcome.type === 'result' ? outcome.result.spf : outcome),
        ).toBe(expected);
        if (!ipDependent) tally.agree += 1;
      });
    }
  });
}

function verdictOf(outcome: RunOutcome<DnsResult>): Verdict {
  if (outcome.type !== 'result') return 'no result';
  const { spf, findings } = outcome.result;
  if (spf !== null && 'error' in spf) return 'temperror';
  if (findings.some((finding) => PERMERROR_FINDINGS.includes(finding.code))) return 'permerror';
  return spf === null ? 'none' : 'evaluates';
}

/**
 * The suite's zone data as a world scenario. As the suite's drivers do, an SPF (type 99) record is
 * also served as TXT unless the name lists TXT records (`TXT: NONE` means none); `TIMEOUT` makes
 * every query for a type not listed before it fail, which a recursive resolver reports as SERVFAIL.
 */
function zoneScenario(zonedata: SuiteScenario['zonedata']): Scenario {
  const records: Record<string, DnsZoneRecords> = {};
  for (const [owner, entries] of Object.entries(zonedata)) {
    const set: DnsZoneRecords = {};
    const spf: (string | string[])[] = [];
    const txt: (string | string[])[] = [];
    let explicitTxt = false;
    let answeredBeforeTimeout: string[] | null = null;
    for (const entry of entries) {
      if (entry === 'TIMEOUT') {
        answeredBeforeTimeout ??= typesOf(set, spf, txt, explicitTxt);
        continue;
      }
      const [type, value] = Object.entries(entry)[0] ?? [];
      if (type === 'SPF') spf.push(value as string | string[]);
      else if (type === 'TXT') {
        explicitTxt = true;
        if (value !== 'NONE') txt.push(value as string | string[]);
      } else if (type === 'A' || type === 'AAAA') (set[type] ??= []).push(String(value));
      else if (type === 'CNAME') set.CNAME = String(value);
      else if (type === 'MX') {
        const [priority, host] = value as [number, string];
        (set.MX ??= []).push({ priority, host });
      }
      // PTR answers matter only with a client IP; the dns check never asks for them.
    }
    const served = explicitTxt ? txt : spf;
    if (served.length > 0) set.TXT = served;
    if (answeredBeforeTimeout !== null) {
      set.fails = {
        types: ['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA', 'DS', 'DNSKEY', 'SOA'].filter(
          (type) => !answeredBeforeTimeout?.includes(type),
        ),
        failure: 'servfail',
      };
    }
    records[owner.toLowerCase().replace(/\.$/, '')] = set;
  }
  return { domain: 'rfc7208.test', about: 'RFC 7208 suite zone data', dns: { records } };
}

function typesOf(set: DnsZoneRecords, spf: unknown[], txt: unknown[], explicitTxt: boolean): string[] {
  const types = Object.keys(set);
  if ((explicitTxt ? txt : spf).length > 0) types.push('TXT');
  return types;
}
