/**
 * DMARC discovery and parsing as RFC 9989 (obsoleting RFC 7489) has receivers do it. Each rule is
 * one named test citing its section (draft-ietf-dmarc-dmarcbis-41 numbering, as published).
 */
import { describe, expect, it } from 'vitest';
import { assessDmarc, parseDmarc } from '../../../../src/checks/dns/dmarc.ts';
import { dmarcTreeWalk, isDmarcRecord } from '../../../../src/sources/doh/records/dmarc.ts';
import { dmarcSchema } from '../../../../src/checks/dns/result.ts';

const at = (name: string, ...txt: string[]) => ({ name, txt });
const codes = (result: ReturnType<typeof assessDmarc>) => result.findings.map((f) => f.code);

describe('RFC 9989 §4.7 "v": which TXT strings are DMARC Policy Records', () => {
  it.each([
    ['v=DMARC1; p=reject', true],
    ['v=DMARC1', true],
    ['V=DMARC1; p=reject', true],
    ['v = DMARC1 ; p=reject', true],
    ['v=dmarc1; p=reject', false],
    [' v=DMARC1; p=reject', false],
    ['p=reject; v=DMARC1', false],
    ['v=DMARC1p=reject', false],
    ['v=DMARC2; p=reject', false],
  ])('%j is a DMARC record: %s', (text, expected) => {
    expect(isDmarcRecord(text)).toBe(expected);
  });

  it('§4.7: a record with a lower-case version is ignored, so the domain has no DMARC policy', () => {
    const { dmarc, findings } = assessDmarc([at('_dmarc.healthy-shop.com', 'v=dmarc1; p=reject')]);
    expect(dmarc).toBeNull();
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'dmarc.missing',
        message: expect.stringContaining('does not start exactly with "v=DMARC1"'),
        evidence: 'v=dmarc1; p=reject',
      }),
    ]);
  });

  it('§4.7: a record with leading white space is ignored, so the domain has no DMARC policy', () => {
    const { dmarc, findings } = assessDmarc([at('_dmarc.healthy-shop.com', ' v=DMARC1; p=reject')]);
    expect(dmarc).toBeNull();
    expect(codes({ dmarc, findings })).toEqual(['dmarc.missing']);
  });
});

describe('RFC 9989 §4.7 and §4.8: tags', () => {
  it('§4.7: reads p, sp, rua, adkim and aspf from the record at _dmarc.<domain>', () => {
    const record =
      'v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc-reports@healthy-shop.com,mailto:rua@dmarc.postmarkapp.com; adkim=s; aspf=s';
    const { dmarc, findings } = assessDmarc([at('_dmarc.healthy-shop.com', 'MS=ms90210', record)]);
    expect(dmarc).toEqual({
      record,
      policy: 'reject',
      subdomain_policy: 'quarantine',
      pct: null,
      rua: ['mailto:dmarc-reports@healthy-shop.com', 'mailto:rua@dmarc.postmarkapp.com'],
      found_at: '_dmarc.healthy-shop.com',
    });
    expect(dmarcSchema.parse(dmarc)).toEqual(dmarc);
    expect(findings).toEqual([]);
  });

  it('§4.7: the np, psd and t tags are valid, and t=y is reported as test mode', () => {
    const record = 'v=DMARC1; p=reject; np=reject; psd=n; t=y; rua=mailto:dmarc@spf-chain.org';
    expect(parseDmarc(record).errors).toEqual([]);
    expect(codes(assessDmarc([at('_dmarc.spf-chain.org', record)]))).toEqual(['dmarc.test_mode']);
  });

  it('§4.7: unknown tags are ignored without a finding', () => {
    expect(parseDmarc('v=DMARC1; p=quarantine; bimi=yes; x_vendor=1').errors).toEqual([]);
  });

  it('§4.7, Appendix C: the removed pct, rf and ri tags are ignored whatever their value', () => {
    const record = 'v=DMARC1; p=reject; pct=150; ri=-5; rf=xml; rua=mailto:d@healthy-shop.com';
    expect(parseDmarc(record).errors).toEqual([]);
    const { dmarc, findings } = assessDmarc([at('_dmarc.healthy-shop.com', record)]);
    expect(findings).toEqual([]);
    // pct is still shown for RFC 7489 receivers, only when it is a valid percentage.
    expect(dmarc).toMatchObject({ policy: 'reject', pct: null });
    expect(assessDmarc([at('_dmarc.a.com', 'v=DMARC1; p=reject; pct=50')]).dmarc?.pct).toBe(50);
  });

  it('§4.7 "p": a record without p is treated as p=none, with no syntax finding', () => {
    const result = assessDmarc([at('_dmarc.healthy-shop.com', 'v=DMARC1; rua=mailto:d@healthy-shop.com')]);
    expect(result.dmarc).toMatchObject({ policy: 'none', subdomain_policy: 'none' });
    expect(codes(result)).toEqual(['dmarc.policy_none']);
  });

  it('§4.7: policy values are ABNF literals, so upper case is the same policy', () => {
    expect(assessDmarc([at('_dmarc.a.com', 'v=DMARC1; p=REJECT')]).dmarc?.policy).toBe('reject');
  });

  it.each([
    ['v=DMARC1; p=reject; fo=2', '"fo=2" is not a valid value'],
    ['v=DMARC1; p=reject; rua=', '"rua=" names no report address'],
    ['v=DMARC1; p=reject; ruf= , ', '"ruf=" names no report address'],
    ['v=DMARC1; p=reject; rua=dmarc@healthy-shop.com', 'has an address that is not a mailto: or https: URI'],
    ['v=DMARC1; p=reject; p=none', 'tag "p" appears more than once'],
    ['v=DMARC1; p=reject; sp quarantine', '"sp quarantine" is not a tag=value pair'],
  ])('§4.8: finds the syntax error in %s', (record, error) => {
    expect(parseDmarc(record).errors.join(' | ')).toContain(error);
  });

  it('§4.8: a syntax error in another tag is discarded in favour of its default; the policy stands', () => {
    const record = 'v=DMARC1; p=reject; fo=2';
    const result = assessDmarc([at('_dmarc.healthy-shop.com', record)]);
    expect(result.dmarc).toMatchObject({ policy: 'reject', subdomain_policy: 'reject' });
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: 'dmarc.syntax',
        message: expect.stringContaining('ignore the invalid parts'),
      }),
    ]);
  });
});

describe('RFC 9989 §4.8: an invalid alignment mode falls back to relaxed (checkdmarc testDMARCInvalidAlignmentModeFallsBack)', () => {
  it('v=DMARC1; p=reject; adkim=x; aspf=q is valid: no dmarc.syntax, an info finding naming both', () => {
    const record = 'v=DMARC1; p=reject; adkim=x; aspf=q';
    expect(parseDmarc(record)).toMatchObject({ errors: [], invalidAlignment: ['adkim=x', 'aspf=q'] });
    expect(parseDmarc(record).tags.has('adkim')).toBe(false);
    const result = assessDmarc([at('_dmarc.healthy-shop.com', record)]);
    expect(result.dmarc).toMatchObject({ policy: 'reject' });
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: 'dmarc.alignment_ignored',
        severity: 'info',
        message: expect.stringMatching(/adkim=x and aspf=q are not r or s: .* relaxed alignment/),
      }),
    ]);
  });

  it('a repeated alignment tag is still a syntax error', () => {
    expect(parseDmarc('v=DMARC1; p=reject; adkim=x; adkim=s').errors).toEqual([
      'tag "adkim" appears more than once',
    ]);
  });
});

describe('an empty rua (mox rejects the record)', () => {
  it('v=DMARC1; rua= gets dmarc.syntax naming the empty address list', () => {
    const result = assessDmarc([at('_dmarc.healthy-shop.com', 'v=DMARC1; rua=')]);
    expect(codes(result)).toEqual(['dmarc.syntax', 'dmarc.policy_none']);
    expect(result.findings[0]?.message).toMatch(/"rua=" names no report address/);
    expect(result.dmarc?.rua).toEqual([]);
  });
});

describe('RFC 9989 §4.10.1: an invalid p, sp or np', () => {
  it('with a valid rua: receivers act as if the record said p=none (sp=invalid is not reject)', () => {
    const record = 'v=DMARC1; p=reject; sp=invalid; rua=mailto:dmarc@healthy-shop.com';
    const result = assessDmarc([at('_dmarc.healthy-shop.com', record)]);
    expect(result.dmarc).toMatchObject({ policy: 'none', subdomain_policy: 'none' });
    expect(codes(result)).toEqual(['dmarc.syntax', 'dmarc.policy_none']);
    expect(result.findings[0]?.message).toContain('act as if the record said p=none');
  });

  it('without a valid rua: receivers apply no DMARC processing, so there is no policy', () => {
    const record = 'v=DMARC1; p=rejected';
    const result = assessDmarc([at('_dmarc.healthy-shop.com', record)]);
    expect(result.dmarc).toMatchObject({ policy: null, subdomain_policy: null });
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: 'dmarc.syntax',
        message: expect.stringContaining('no DMARC processing'),
      }),
    ]);
  });

  it('an invalid np counts too', () => {
    const record = 'v=DMARC1; p=reject; np=block; rua=mailto:d@healthy-shop.com';
    expect(assessDmarc([at('_dmarc.healthy-shop.com', record)]).dmarc?.policy).toBe('none');
  });
});

describe('RFC 9989 §4.10: DNS Tree Walk and Organizational Domain', () => {
  it('§4.10: queries the parents up to the TLD, and at most eight names in all', () => {
    expect(dmarcTreeWalk('a.mail.example.com')).toEqual(['mail.example.com', 'example.com', 'com']);
    const walk = dmarcTreeWalk('a.b.c.d.e.f.g.h.i.j.mail.example.com');
    expect(walk).toEqual([
      'g.h.i.j.mail.example.com',
      'h.i.j.mail.example.com',
      'i.j.mail.example.com',
      'j.mail.example.com',
      'mail.example.com',
      'example.com',
      'com',
    ]);
  });

  it('§4.10.1: the domain’s own record wins over any parent record', () => {
    const result = assessDmarc([
      at('_dmarc.mail.healthy-shop.com', 'v=DMARC1; p=quarantine'),
      at('_dmarc.healthy-shop.com', 'v=DMARC1; p=none'),
    ]);
    expect(result.dmarc).toMatchObject({ found_at: '_dmarc.mail.healthy-shop.com', policy: 'quarantine' });
  });

  it('§4.10.1: a subdomain without a record takes the Organizational Domain’s sp policy', () => {
    const result = assessDmarc([
      at('_dmarc.blog.healthy-shop.com'),
      at('_dmarc.healthy-shop.com', 'v=DMARC1; p=reject; sp=none; rua=mailto:d@healthy-shop.com'),
      at('_dmarc.com'),
    ]);
    expect(result.dmarc).toMatchObject({
      found_at: '_dmarc.healthy-shop.com',
      policy: 'reject',
      subdomain_policy: 'none',
    });
    expect(codes(result)).toEqual(['dmarc.policy_none']);
  });

  it('§4.10.2 rule 3: without psd tags the record at the name with the fewest labels applies', () => {
    const result = assessDmarc([
      at('_dmarc.a.mail.example.com'),
      at('_dmarc.mail.example.com', 'v=DMARC1; p=none'),
      at('_dmarc.example.com', 'v=DMARC1; p=reject'),
      at('_dmarc.com'),
    ]);
    expect(result.dmarc).toMatchObject({ found_at: '_dmarc.example.com', subdomain_policy: 'reject' });
  });

  it('§4.10.2 rule 1: a record with psd=n is the Organizational Domain and stops the walk', () => {
    const result = assessDmarc([
      at('_dmarc.a.mail.example.com'),
      at('_dmarc.mail.example.com', 'v=DMARC1; p=quarantine; psd=n'),
      at('_dmarc.example.com', 'v=DMARC1; p=reject'),
    ]);
    expect(result.dmarc).toMatchObject({ found_at: '_dmarc.mail.example.com', policy: 'quarantine' });
  });

  it('§4.10.2 rule 2: under a psd=y record the Public Suffix Domain’s policy applies when the domain below has none', () => {
    const result = assessDmarc([
      at('_dmarc.a.mail.example.gov'),
      at('_dmarc.mail.example.gov'),
      at('_dmarc.example.gov'),
      at('_dmarc.gov', 'v=DMARC1; p=reject; psd=y'),
    ]);
    expect(result.dmarc).toMatchObject({ found_at: '_dmarc.gov', subdomain_policy: 'reject' });
  });

  it('§4.10: several records at one name are all discarded, and the walk goes on', () => {
    const first = 'v=DMARC1; p=reject; rua=mailto:dmarc@healthy-shop.com';
    const second = 'v=DMARC1; p=none';
    const result = assessDmarc([
      at('_dmarc.shop.healthy-shop.com', first, second),
      at('_dmarc.healthy-shop.com', 'v=DMARC1; p=quarantine'),
    ]);
    expect(result.findings[0]).toMatchObject({
      code: 'dmarc.multiple_records',
      severity: 'critical',
      evidence: `${first}\n${second}`,
    });
    expect(result.dmarc).toMatchObject({
      found_at: '_dmarc.healthy-shop.com',
      subdomain_policy: 'quarantine',
    });
  });

  it('reports dmarc.missing when no name of the walk has a DMARC record', () => {
    const result = assessDmarc([
      at('_dmarc.www.dmarc-monitor.net', 'v=spf1 -all'),
      at('_dmarc.dmarc-monitor.net'),
      at('_dmarc.net'),
    ]);
    expect(result.dmarc).toBeNull();
    expect(codes(result)).toEqual(['dmarc.missing']);
  });

  it('warns about p=none with the record as evidence', () => {
    const record = 'v=DMARC1; p=none; rua=mailto:dmarc_agg@vali.email; fo=1';
    const result = assessDmarc([at('_dmarc.dmarc-monitor.net', record)]);
    expect(result.findings).toEqual([
      expect.objectContaining({ code: 'dmarc.policy_none', severity: 'warning', evidence: record }),
    ]);
  });
});
