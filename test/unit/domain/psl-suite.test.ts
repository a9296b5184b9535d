/**
 * The Public Suffix List's reference tests (`checkPublicSuffix(input, registrable domain)`) through
 * `normalizeDomain`: the registrable domain of a valid input, null for a refused one. The product
 * differs on purpose in the cases listed in POLICY (also in the README's validation section).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asciiToUnicode } from '../../../src/domain/idna.ts';
import { normalizeDomain } from '../../../src/domain/normalize.ts';

const SUITE = new URL('../../fixtures/suites/test_psl.txt', import.meta.url);
const CALL = /^checkPublicSuffix\((null|'[^']*'), (null|'[^']*')\);$/;

const literal = (text: string): string | null => (text === 'null' ? null : text.slice(1, -1));

const cases = readFileSync(SUITE, 'utf8')
  .split('\n')
  .flatMap((line) => {
    const match = CALL.exec(line.trim());
    return match === null ? [] : [{ input: literal(match[1] ?? ''), expected: literal(match[2] ?? '') }];
  });

const EXAMPLE_TLD = '.example is reserved (RFC 6761), so a name under it is refused';
const ICANN_ONLY =
  'registrable_domain uses the ICANN section only; uk.com is a private-section suffix (CentralNic), and the registry whose RDAP and CT records apply is .com';

/** The product's documented answer where it differs from the PSL test, with the reason. */
const POLICY: Record<string, { answer: string | null; reason: string }> = {
  'example.example': { answer: null, reason: EXAMPLE_TLD },
  'b.example.example': { answer: null, reason: EXAMPLE_TLD },
  'a.b.example.example': { answer: null, reason: EXAMPLE_TLD },
  'uk.com': { answer: 'uk.com', reason: ICANN_ONLY },
  'example.uk.com': { answer: 'uk.com', reason: ICANN_ONLY },
  'b.example.uk.com': { answer: 'uk.com', reason: ICANN_ONLY },
  'a.b.example.uk.com': { answer: 'uk.com', reason: ICANN_ONLY },
};

/** The registrable domain in the form of the input (the PSL tests answer Unicode for Unicode). */
function registrableDomain(input: string | null): string | null {
  const checked = normalizeDomain(input ?? '');
  if (!checked.valid) return null;
  return /\P{ASCII}/u.test(input ?? '')
    ? asciiToUnicode(checked.registrableDomain)
    : checked.registrableDomain;
}

describe('Public Suffix List test_psl.txt', () => {
  it('agrees with every checkPublicSuffix line except the documented policy cases', () => {
    const differing = new Map<string, string | null>();
    for (const { input, expected } of cases) {
      const actual = registrableDomain(input);
      if (actual !== expected) differing.set(String(input), actual);
    }
    // eslint-disable-next-line no-console -- the suite's agreement count belongs in the test output
    console.log(
      `PSL test_psl.txt: ${cases.length - differing.size}/${cases.length} lines agree (${differing.size} documented policy deviations)`,
    );
    // 78 calls, the first with a null input (refused as empty); the commented-out .local lines do not count.
    expect(cases).toHaveLength(78);
    expect(Object.fromEntries(differing)).toEqual(
      Object.fromEntries(Object.entries(POLICY).map(([input, { answer }]) => [input, answer])),
    );
  });

  it('refuses the names whose registrable domain the PSL test leaves null', () => {
    const nulls = cases.filter(
      (line) => line.expected === null && line.input !== null && !(line.input in POLICY),
    );
    expect(nulls.length).toBeGreaterThan(20);
    for (const { input } of nulls) expect(normalizeDomain(input ?? '').valid, String(input)).toBe(false);
  });
});
