import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessSpf } from '../../../../src/checks/dns/spf.ts';
import type { SpfWalk } from '../../../../src/sources/doh/spf-walk.ts';
import { parseSpf } from '../../../../src/sources/doh/records/spf-record.ts';
import { walkSpf } from '../../../../src/sources/doh/spf-walk.ts';
import { type DnsWorld, startDnsWorld } from '../../sources/doh/world.ts';

const noWalk = (all: string | null): SpfWalk => ({
  lookups: 0,
  voidLookups: 0,
  includes: [],
  all,
  problems: [],
});
const codes = (txt: string[], walk: SpfWalk | null) => assessSpf(txt, walk).findings.map((f) => f.code);

describe('SPF record syntax (RFC 7208 §12)', () => {
  it('accepts a realistic record with every mechanism kind and modifiers', () => {
    const record =
      'v=spf1 a mx:mail.healthy-shop.com/24 a:web.healthy-shop.com//64 ip4:192.0.2.0/24 ip6:2001:db8::/32 include:_spf.google.com exists:%{i}._spf.mta.salesforce.com ?ptr:healthy-shop.com redirect=_spf.healthy-shop.com exp=explain._spf.%{d}';
    const parsed = parseSpf(record);
    expect(parsed.errors).toEqual([]);
    expect(parsed.redirect).toBe('_spf.healthy-shop.com');
    expect(parsed.all).toBeNull();
    expect(parsed.terms).toHaveLength(10);
  });

  it.each([
    ['v=spf1 inclde:_spf.google.com -all', 'unknown mechanism "inclde:_spf.google.com"'],
    ['v=spf1 ip4:192.0.2.300 -all', 'invalid IPv4 address in "ip4:192.0.2.300"'],
    ['v=spf1 ip4:192.0.2.0/33 -all', 'invalid prefix length in "ip4:192.0.2.0/33"'],
    ['v=spf1 ip6:2001:db8::zz -all', 'invalid IPv6 address in "ip6:2001:db8::zz"'],
    ['v=spf1 include -all', '"include" needs a value in "include"'],
    ['v=spf1 include: -all', 'invalid domain in "include:"'],
    ['v=spf1 include:localhost -all', 'invalid domain in "include:localhost"'],
    ['v=spf1 a:mail..example-shop.com -all', 'invalid domain in "a:mail..example-shop.com"'],
    ['v=spf1 mx/129 -all', 'invalid prefix length in "mx/129"'],
    ['v=spf1 mx/24/ -all', 'invalid CIDR in "mx/24/"'],
    ['v=spf1 -all:now', '"all" takes no argument in "-all:now"'],
    ['v=spf1 redirect=_spf.a.com redirect=_spf.b.com', '"redirect" appears more than once'],
    ['v=spf1 include:_spf.%{z}.com -all', 'invalid domain in "include:_spf.%{z}.com"'],
  ])('reports %s', (record, error) => {
    expect(parseSpf(record).errors).toContain(error);
  });

  it.each([
    // domain-spec = macro-string domain-end: ":" and "/" are macro-literals (RFC 7208 §7.1, suite a-colon-domain).
    'v=spf1 a:foo:bar/baz.example.com -all',
    'v=spf1 mx:foo:bar/baz.example.com -all',
    'v=spf1 a:foo:bar/baz.example.com/24//64 -all',
    // A dash-joined top label is a toplabel (RFC 7208 §7.1, suite a-dash-in-toplabel).
    'v=spf1 a:foo.example.xn--zckzah -all',
    // Domain-spec macros; c, r and t belong in explanation text only.
    'v=spf1 exists:%{ir}.%{v}._spf.%{d2} -all',
    'v=spf1 ip4:192.0.2.0/0 ip6:2001:db8::/128 -all',
  ])('accepts %s (RFC 7208 §12 ABNF)', (record) => {
    expect(parseSpf(record).errors).toEqual([]);
  });

  it.each([
    // ip4-cidr-length = "/" ("0" / %x31-39 0*1DIGIT): no leading zero (suite cidr4-032).
    ['v=spf1 ip4:1.2.3.4/032 -all', 'invalid prefix length in "ip4:1.2.3.4/032"'],
    ['v=spf1 a/024 -all', 'invalid prefix length in "a/024"'],
    // %{r} is an explanation-only macro, not allowed in the exp domain-spec (suite exp-only-macro-char).
    ['v=spf1 -all exp=%{r}.example.com', 'invalid domain in "exp=%{r}.example.com"'],
    ['v=spf1 include:museum -all', 'invalid domain in "include:museum"'],
    ['v=spf1 a:foo.example.123 -all', 'invalid domain in "a:foo.example.123"'],
    ['v=spf1 include:_spf.example.com/24 -all', 'invalid domain in "include:_spf.example.com/24"'],
  ])('reports %s', (record, error) => {
    expect(parseSpf(record).errors).toContain(error);
  });

  it('turns syntax errors into spf.syntax with the record as evidence, and marks it invalid', () => {
    const record = 'v=spf1 ip4:203.0.113.7 inlude:sendgrid.net -all';
    const { spf, findings } = assessSpf([record], noWalk('-all'));
    expect(spf?.valid).toBe(false);
    expect(findings).toContainEqual(
      expect.objectContaining({ code: 'spf.syntax', severity: 'critical', evidence: record }),
    );
  });
});

describe('SPF all qualifier', () => {
  it.each([
    ['v=spf1 include:_spf.google.com +all', '+all', ['spf.permissive_all'], 'critical'],
    ['v=spf1 include:_spf.google.com all', '+all', ['spf.permissive_all'], 'critical'],
    ['v=spf1 include:_spf.google.com ?all', '?all', ['spf.permissive_all'], 'warning'],
    ['v=spf1 include:_spf.google.com ~all', '~all', ['spf.softfail_all'], 'info'],
    ['v=spf1 include:_spf.google.com -all', '-all', [], null],
    ['v=spf1 include:_spf.google.com', null, ['spf.permissive_all'], 'warning'],
  ])('%s → all %s', (record, all, expected, severity) => {
    const { spf, findings } = assessSpf([record], noWalk(parseSpf(record).all));
    expect(spf?.all).toBe(all);
    expect(findings.map((f) => f.code)).toEqual(expected);
    if (severity) expect(findings[0]?.severity).toBe(severity);
    expect(spf?.valid).toBe(true);
  });

  it('takes the all term from the redirect target when the record has none', () => {
    const walk = { ...noWalk('-all'), lookups: 1, includes: ['_spf.healthy-shop.com'] };
    const { spf, findings } = assessSpf(['v=spf1 redirect=_spf.healthy-shop.com'], walk);
    expect(spf?.all).toBe('-all');
    expect(findings).toEqual([]);
  });
});

describe('SPF record count', () => {
  it('reports spf.missing when no TXT string is an SPF record', () => {
    const { spf, findings } = assessSpf(['google-site-verification=abc', 'v=spf10 nonsense'], null);
    expect(spf).toBeNull();
    expect(findings.map((f) => f.code)).toEqual(['spf.missing']);
  });

  it('reports two SPF records as spf.multiple_records with both as evidence', () => {
    const first = 'v=spf1 include:_spf.google.com ~all';
    const second = 'v=spf1 include:spf.protection.outlook.com -all';
    const { spf, findings } = assessSpf([first, 'MS=ms48224913', second], null);
    expect(spf).toMatchObject({ record: first, valid: false });
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'spf.multiple_records',
        severity: 'critical',
        evidence: `${first}\n${second}`,
      }),
    ]);
    expect(codes([first, second], null)).not.toContain('spf.missing');
  });

  it('still reports a +all in any of several SPF records', () => {
    const strict = 'v=spf1 include:_spf.google.com -all';
    const open = 'v=spf1 include:sendgrid.net +all';
    const { findings } = assessSpf([strict, open], null);
    expect(findings).toEqual([
      expect.objectContaining({ code: 'spf.multiple_records', severity: 'critical' }),
      expect.objectContaining({ code: 'spf.permissive_all', severity: 'critical', evidence: open }),
    ]);
  });
});

describe('SPF include tree against the DoH fake (RFC 7208 §4.6.4)', () => {
  let world: DnsWorld;
  beforeAll(async () => {
    world = await startDnsWorld();
  });
  afterAll(() => world.close());

  const walkAt = async (domain: string) => {
    const client = world.client();
    const txt = await client.query(domain, 'TXT');
    if (!txt.ok) throw new Error('TXT lookup failed');
    const record = txt.value.records.flatMap((r) =>
      r.type === 'TXT' && r.text.startsWith('v=spf1') ? [r.text] : [],
    );
    const walk = await walkSpf((name, type) => client.query(name, type), domain, record[0] ?? '');
    if (!walk.ok) throw new Error('walk failed');
    return { record: record[0] ?? '', walk: walk.value };
  };

  it('counts 9 lookups through nested includes: valid', async () => {
    const { record, walk } = await walkAt('spf-nine.net');
    expect(walk).toMatchObject({ lookups: 9, voidLookups: 0, problems: [], all: '-all' });
    expect(walk.includes).toEqual([
      '_spf.google.com',
      '_netblocks.google.com',
      '_netblocks2.google.com',
      '_netblocks3.google.com',
      'spf.protection.outlook.com',
      'spfd.protection.outlook.com',
      'sendgrid.net',
      'servers.mcsv.net',
    ]);
    expect(assessSpf([record], walk).spf?.valid).toBe(true);
  });

  it('counts exactly 10 lookups: still valid', async () => {
    const { record, walk } = await walkAt('spf-chain.org');
    expect(walk.lookups).toBe(10);
    expect(codes([record], walk)).toEqual([]);
  });

  it('stops at the 11th lookup and reports spf.too_many_lookups', async () => {
    const before = world.primary.queries.length;
    const { record, walk } = await walkAt('spf-overflow.net');
    expect(walk.lookups).toBe(11);
    expect(walk.problems).toEqual([
      expect.objectContaining({ code: 'too_many_lookups', evidence: 'include:mail.zendesk.com' }),
    ]);
    // The term past the limit is never followed. Its TXT record is fetched with the rest of its
    // level (all lookups of one depth run in parallel), but it is neither counted nor evaluated.
    expect(walk.includes).not.toContain('mail.zendesk.com');
    expect(world.primary.queries.slice(before).filter((q) => q.name === 'mail.zendesk.com')).toEqual([
      { name: 'mail.zendesk.com', type: 'TXT', cd: false },
    ]);
    const { spf, findings } = assessSpf([record], walk);
    expect(spf).toMatchObject({ valid: false, lookups: 11, all: '~all' });
    expect(findings.map((f) => f.code)).toEqual(['spf.too_many_lookups', 'spf.softfail_all']);
  });

  it('reports a bare include as spf.syntax only: it is never evaluated, so it is no include loop', async () => {
    const record = 'v=spf1 include -all';
    const walk = await walkSpf(
      () => Promise.reject(new Error('no lookup expected')),
      'bare.example.com',
      record,
    );
    expect(walk).toEqual({ ok: true, value: expect.objectContaining({ lookups: 0, problems: [] }) });
    if (!walk.ok) return;
    expect(codes([record], walk.value)).toEqual(['spf.syntax']);
  });

  it('detects an include loop and stops instead of looping', async () => {
    const { record, walk } = await walkAt('spf-loop.net');
    expect(walk.includes).toEqual(['_spf.spf-loop.net', '_spf2.spf-loop.net']);
    expect(walk.lookups).toBe(3);
    expect(walk.problems[0]).toMatchObject({ code: 'include_loop', evidence: 'include:_spf.spf-loop.net' });
    expect(codes([record], walk)).toContain('spf.include_loop');
  });

  it('allows 2 void lookups', async () => {
    const { record, walk } = await walkAt('mail.void-lookups.com');
    expect(walk).toMatchObject({ lookups: 3, voidLookups: 2, problems: [] });
    expect(assessSpf([record], walk).spf?.valid).toBe(true);
  });

  it('reports the 3rd void lookup as spf.too_many_void_lookups and stops there', async () => {
    const { record, walk } = await walkAt('void-lookups.com');
    expect(walk).toMatchObject({ lookups: 3, voidLookups: 3, includes: [] });
    expect(walk.problems).toEqual([
      expect.objectContaining({ code: 'too_many_void_lookups', evidence: 'mx:legacy-mail.void-lookups.com' }),
    ]);
    expect(codes([record], walk)).toEqual(['spf.too_many_void_lookups']);
  });

  it('returns the resolver failure instead of a verdict when a lookup fails', async () => {
    world.primary.mode = 'http_500';
    world.fallback.mode = 'http_500';
    try {
      const client = world.client();
      const walk = await walkSpf((name, type) => client.query(name, type), 'spf-nine.net', 'v=spf1 mx -all');
      expect(walk.ok ? 'walked' : walk.failure.code).toBe('http_status');
    } finally {
      world.primary.mode = null;
      world.fallback.mode = null;
    }
  });
});
