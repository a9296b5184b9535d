/**
 * normalizeDomain, table-driven: every accepted spelling maps to one exact ASCII/Unicode pair, and
 * every refusal rule answers its exact reason code, including hostile and malformed input.
 */
import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INVALID_REASON_CODES, type InvalidReasonCode } from '../../../src/domain/invalid-reasons.ts';
import { MAX_DOMAIN_LENGTH, normalizeDomain } from '../../../src/domain/normalize.ts';

/** [input, domain, unicode, registrable domain, public suffix] */
type ValidCase = [input: string, domain: string, unicode: string, registrable: string, suffix: string];

const KB10 = 10 * 1024;
const label63 = 'a'.repeat(63);
/** Exactly 253 characters: three 63-character labels, a 57-character one, then `.com`. */
const name253 = `${label63}.${label63}.${label63}.${'b'.repeat(57)}.com`;

const plain = (input: string, domain = 'example.com'): ValidCase => [input, domain, domain, domain, 'com'];

const validCases: ValidCase[] = [
  // Case, whitespace and the root dot.
  plain('example.com'),
  plain('EXAMPLE.COM'),
  plain('Example.Com'),
  plain('  example.com  '),
  plain('\texample.com\n'),
  plain('\u00a0example.com\u3000'),
  plain('example.com.'),
  plain('EXAMPLE.COM.'),
  ['example.net', 'example.net', 'example.net', 'example.net', 'net'],
  ['example.org', 'example.org', 'example.org', 'example.org', 'org'],
  // Subdomains and multi-label public suffixes.
  ['www.example.com', 'www.example.com', 'www.example.com', 'example.com', 'com'],
  ['a.b.c.example.com', 'a.b.c.example.com', 'a.b.c.example.com', 'example.com', 'com'],
  ['example.co.uk', 'example.co.uk', 'example.co.uk', 'example.co.uk', 'co.uk'],
  ['www.example.co.uk', 'www.example.co.uk', 'www.example.co.uk', 'example.co.uk', 'co.uk'],
  ['WWW.Example.CO.UK.', 'www.example.co.uk', 'www.example.co.uk', 'example.co.uk', 'co.uk'],
  // Private PSL entries do not count as suffixes.
  ['foo.blogspot.com', 'foo.blogspot.com', 'foo.blogspot.com', 'blogspot.com', 'com'],
  ['github.io', 'github.io', 'github.io', 'github.io', 'io'],
  ['user.github.io', 'user.github.io', 'user.github.io', 'github.io', 'io'],
  // Wildcard and exception rules of the PSL (`*.ck`, `!www.ck`).
  ['a.b.ck', 'a.b.ck', 'a.b.ck', 'a.b.ck', 'b.ck'],
  ['www.ck', 'www.ck', 'www.ck', 'www.ck', 'ck'],
  ['foo.bar', 'foo.bar', 'foo.bar', 'foo.bar', 'bar'],
  // Labels that only look special.
  plain('a-b.com', 'a-b.com'),
  plain('ab--cd.com', 'ab--cd.com'),
  // R-LDH labels (`--` in positions 3–4) exist in the DNS; accepted in ASCII labels (idna.ts).
  [
    'r3---sn-abc.googlevideo.com',
    'r3---sn-abc.googlevideo.com',
    'r3---sn-abc.googlevideo.com',
    'googlevideo.com',
    'com',
  ],
  plain('1password.com', '1password.com'),
  plain('123.com', '123.com'),
  plain('a.com', 'a.com'),
  plain('test.com', 'test.com'),
  plain('localhost.com', 'localhost.com'),
  ['local.example.com', 'local.example.com', 'local.example.com', 'example.com', 'com'],
  ['db.internal.example.com', 'db.internal.example.com', 'db.internal.example.com', 'example.com', 'com'],
  plain(`${label63}.com`, `${label63}.com`),
  [name253, name253, name253, `${'b'.repeat(57)}.com`, 'com'],
  // URLs: scheme, user info, port, path, query and fragment are dropped.
  plain('http://example.com'),
  plain('https://example.com/'),
  plain('HTTPS://EXAMPLE.COM.:8443/a?b#c'),
  plain('https://example.com:443/path?q=1#frag'),
  plain('example.com:443'),
  plain('example.com:'),
  plain('example.com:443/path'),
  plain('example.com/path'),
  plain('example.com?x=1'),
  plain('example.com#top'),
  plain('//example.com'),
  plain('//example.com/x'),
  plain('http:///example.com'),
  plain('http://user@example.com'),
  plain('http://user:pass@example.com:8080/'),
  plain('http://user@evil.com@good.com', 'good.com'),
  plain('http://a@b@c@example.com:80/'),
  plain('user@example.com'),
  ['ftp://example.org/file', 'example.org', 'example.org', 'example.org', 'org'],
  ['ws://example.net/socket', 'example.net', 'example.net', 'example.net', 'net'],
  plain('foo://ex%41mple.com/x'),
  plain('http://example.com\\@evil.com'),
  plain('example.com\\path'),
  plain('http://exam%70le.com'),
  plain('exam%70le.com'),
  // Injection-shaped text in the path or query does not reach the hostname.
  plain('example.com/../../etc/passwd'),
  plain('example.com/<script>alert(1)</script>'),
  plain("example.com/?q=' OR 1=1 --"),
  plain('https://example.com/?q=%00%0d%0a'),
  plain(`https://example.com/${'a'.repeat(KB10)}`),
  plain(`https://example.com/?q=${'%0d%0a'.repeat(2000)}`),
  // IDNs: Unicode and Punycode in, both forms out.
  ['bücher.de', 'xn--bcher-kva.de', 'bücher.de', 'xn--bcher-kva.de', 'de'],
  ['BÜCHER.DE', 'xn--bcher-kva.de', 'bücher.de', 'xn--bcher-kva.de', 'de'],
  ['xn--bcher-kva.de', 'xn--bcher-kva.de', 'bücher.de', 'xn--bcher-kva.de', 'de'],
  ['XN--BCHER-KVA.DE', 'xn--bcher-kva.de', 'bücher.de', 'xn--bcher-kva.de', 'de'],
  ['xn--bcher-kva.de.', 'xn--bcher-kva.de', 'bücher.de', 'xn--bcher-kva.de', 'de'],
  ['https://bücher.de/pfad?x=1', 'xn--bcher-kva.de', 'bücher.de', 'xn--bcher-kva.de', 'de'],
  ['www.bücher.de', 'www.xn--bcher-kva.de', 'www.bücher.de', 'xn--bcher-kva.de', 'de'],
  ['münchen.de', 'xn--mnchen-3ya.de', 'münchen.de', 'xn--mnchen-3ya.de', 'de'],
  ['例え.jp', 'xn--r8jz45g.jp', '例え.jp', 'xn--r8jz45g.jp', 'jp'],
  ['xn--r8jz45g.jp', 'xn--r8jz45g.jp', '例え.jp', 'xn--r8jz45g.jp', 'jp'],
  ['😀.ws', 'xn--e28h.ws', '😀.ws', 'xn--e28h.ws', 'ws'],
  ['xn--ls8h.la', 'xn--ls8h.la', '💩.la', 'xn--ls8h.la', 'la'],
  ['faß.de', 'xn--fa-hia.de', 'faß.de', 'xn--fa-hia.de', 'de'],
  ['العربية.com', 'xn--mgbcd4a2b0d2b.com', 'العربية.com', 'xn--mgbcd4a2b0d2b.com', 'com'],
  ['пример.рф', 'xn--e1afmkfd.xn--p1ai', 'пример.рф', 'xn--e1afmkfd.xn--p1ai', 'xn--p1ai'],
  ['xn--e1afmkfd.xn--p1ai', 'xn--e1afmkfd.xn--p1ai', 'пример.рф', 'xn--e1afmkfd.xn--p1ai', 'xn--p1ai'],
  ['ПРИМЕР.РФ', 'xn--e1afmkfd.xn--p1ai', 'пример.рф', 'xn--e1afmkfd.xn--p1ai', 'xn--p1ai'],
  // UTS #46 mapping: width and compatibility forms, ideographic dots.
  plain('ａｂｃ.com', 'abc.com'),
  plain('Ⅸ.com', 'ix.com'),
  plain('example。com'),
  plain('example．com'),
  plain('example.com。'),
  // UTS #46 ignores these invisible characters, so they cannot smuggle a different name in.
  plain('exa\u200bmple.com'),
  plain('exa\u00admple.com'),
  plain('exa\ufeffmple.com'),
  // Homographs that are valid IDNA are valid; the ASCII form shows the Punycode.
  ['аpple.com', 'xn--pple-43d.com', 'аpple.com', 'xn--pple-43d.com', 'com'],
  ['xn--80ak6aa92e.com', 'xn--80ak6aa92e.com', 'аррӏе.com', 'xn--80ak6aa92e.com', 'com'],
  ['gооgle.com', 'xn--ggle-55da.com', 'gооgle.com', 'xn--ggle-55da.com', 'com'],
  ['pаypal.com', 'xn--pypal-4ve.com', 'pаypal.com', 'xn--pypal-4ve.com', 'com'],
];

type InvalidCase = [input: string, code: InvalidReasonCode];
const C = INVALID_REASON_CODES;

/** Eight labels of eleven CJK characters: 98 characters in Unicode, 338 in ASCII. */
const longIdn = `${Array.from({ length: 8 }, () => '例え日本語漢字試験東京').join('.')}.jp`;

const invalidCases: InvalidCase[] = [
  // Empty.
  ['', C.empty],
  [' ', C.empty],
  ['\t\n\r ', C.empty],
  ['\u00a0\u3000', C.empty],
  ['.', C.empty],
  ['file:///etc/passwd', C.empty],
  // URL-shaped but unparseable.
  ['http://', C.invalidUrl],
  ['example.com:99999', C.invalidUrl],
  ['example.com:abc', C.invalidUrl],
  ['http://exa mple.com/', C.invalidUrl],
  ['example.com;rm -rf /', C.invalidUrl],
  ['example.com%0d%0aX:1', C.invalidUrl],
  ['<script>alert(1)</script>', C.invalidUrl],
  ['http://[::1', C.invalidUrl],
  ['http://example.com%00/', C.invalidUrl],
  ['https://exa<mple.com/', C.invalidUrl],
  // Too long (ASCII form).
  [`${name253}a`, C.tooLong],
  ['a'.repeat(KB10), C.tooLong],
  [`${'a.'.repeat(KB10 / 2)}com`, C.tooLong],
  [`${'x'.repeat(300)}.com`, C.tooLong],
  [`https://${'a'.repeat(KB10)}.com/`, C.tooLong],
  [longIdn, C.tooLong],
  // A label over 63.
  [`${'a'.repeat(64)}.com`, C.labelTooLong],
  [`www.${'a'.repeat(64)}.example.com`, C.labelTooLong],
  [`${'ü'.repeat(60)}.de`, C.labelTooLong],
  // Empty labels.
  ['a..b.com', C.emptyLabel],
  ['.example.com', C.emptyLabel],
  ['example.com..', C.emptyLabel],
  ['example..com', C.emptyLabel],
  ['..', C.emptyLabel],
  ['../../etc/passwd', C.emptyLabel],
  ['http://a..b.com/', C.emptyLabel],
  // Characters outside LDH.
  ['a_b.com', C.invalidCharacters],
  ['_dmarc.example.com', C.invalidCharacters],
  ['-a.com', C.invalidCharacters],
  ['a-.com', C.invalidCharacters],
  ['xn--.com', C.invalidCharacters],
  ['example-.com', C.invalidCharacters],
  ['a*b.com', C.invalidCharacters],
  ['*.example.com', C.invalidCharacters],
  ['exa mple.com', C.invalidCharacters],
  ["' OR 1=1", C.invalidCharacters],
  ["example.com' OR '1'='1", C.invalidCharacters],
  ['<script>', C.invalidCharacters],
  ['example.com!', C.invalidCharacters],
  ['a$b.com', C.invalidCharacters],
  ['a"b.com', C.invalidCharacters],
  ['a,b.com', C.invalidCharacters],
  ['example.com;', C.invalidCharacters],
  ['[example.com]', C.invalidCharacters],
  ['example.com%0a', C.invalidCharacters],
  ['example.com%', C.invalidCharacters],
  ['$(whoami).example.com', C.invalidCharacters],
  ['`id`.example.com', C.invalidCharacters],
  ['example.com|cat', C.invalidCharacters],
  // Control characters anywhere, including NUL and those the URL parser would delete.
  ['example.com\u0000.evil.com', C.invalidCharacters],
  ['exam\tple.com', C.invalidCharacters],
  ['exa\nmple.com', C.invalidCharacters],
  ['example\r.com', C.invalidCharacters],
  ['a\u0007b.com', C.invalidCharacters],
  ['\u007fexample.com', C.invalidCharacters],
  ['exam\u0085ple.com', C.invalidCharacters],
  ['https://example.com/a\tb', C.invalidCharacters],
  ['example.com\r\nX-Injected: 1', C.invalidCharacters],
  ['\u0000', C.invalidCharacters],
  // Not valid IDNA: bad Punycode, bidi controls and bidi-rule violations, bare joiners.
  ['xn--zz.com', C.invalidIdn],
  ['xn--a.com', C.invalidIdn],
  ['xn--ab.com', C.invalidIdn],
  ['www.xn--zz.example.com', C.invalidIdn],
  ['exa\u202emple.com', C.invalidIdn],
  ['\u202egoogle.com', C.invalidIdn],
  ['exa\u2066mple.com', C.invalidIdn],
  ['exa\u200fmple.com', C.invalidIdn],
  ['exa\u200dmple.com', C.invalidIdn],
  ['exa\u200cmple.com', C.invalidIdn],
  ['aא.com', C.invalidIdn],
  // The Bidi rule across labels (RFC 5893 §2), which WHATWG domainToASCII does not apply.
  ['0à.א.com', C.invalidIdn],
  ['https://0à.א.com/', C.invalidIdn],
  // A U-label starting or ending with a hyphen behind a well-formed A-label; `--` at 3–4 of a U-label.
  ['xn--ej0b.xn----d87b.com', C.invalidIdn],
  ['xn--8sb.xn-----iw2a.com', C.invalidIdn],
  ['榶-.com', C.invalidIdn],
  ['ab--ü.com', C.invalidIdn],
  ['xn--ab---3ra.com', C.invalidIdn],
  // IP literals in every spelling.
  ['127.0.0.1', C.ipLiteral],
  ['192.168.1.1', C.ipLiteral],
  ['8.8.8.8', C.ipLiteral],
  ['127.1', C.ipLiteral],
  ['2130706433', C.ipLiteral],
  ['0x7f.1', C.ipLiteral],
  ['0x7f000001', C.ipLiteral],
  ['017700000001', C.ipLiteral],
  ['0300.0250.0.1', C.ipLiteral],
  ['0x7f.0x0.0.1', C.ipLiteral],
  ['999.1.1.1', C.ipLiteral],
  ['4294967296', C.ipLiteral],
  ['1.2.3.4.5', C.ipLiteral],
  ['127.0.0.1.', C.ipLiteral],
  ['127.0.0.1:80', C.ipLiteral],
  ['user@127.0.0.1', C.ipLiteral],
  ['http://127.0.0.1/', C.ipLiteral],
  ['http://2130706433:8080/', C.ipLiteral],
  ['http://0x7f.1/admin', C.ipLiteral],
  ['[::1]', C.ipLiteral],
  ['::1', C.ipLiteral],
  ['::', C.ipLiteral],
  ['[::]', C.ipLiteral],
  ['2001:db8::1', C.ipLiteral],
  ['[2001:db8::1]', C.ipLiteral],
  ['http://[2001:db8::1]:443/', C.ipLiteral],
  ['[::1]:8080', C.ipLiteral],
  ['::ffff:127.0.0.1', C.ipLiteral],
  ['[::ffff:127.0.0.1]', C.ipLiteral],
  ['::ffff:7f00:1', C.ipLiteral],
  ['http://[::ffff:7f00:1]/', C.ipLiteral],
  ['fe80::1%eth0', C.ipLiteral],
  // localhost.
  ['localhost', C.localhost],
  ['LOCALHOST', C.localhost],
  ['localhost.', C.localhost],
  ['http://localhost:8080/', C.localhost],
  ['localhost:3000', C.localhost],
  // Special-use and reserved names.
  ['foo.localhost', C.reservedName],
  ['printer.local', C.reservedName],
  ['example.test', C.reservedName],
  ['foo.invalid', C.reservedName],
  ['example.example', C.reservedName],
  ['abc.onion', C.reservedName],
  ['db.internal', C.reservedName],
  ['home.arpa', C.reservedName],
  ['1.0.0.127.in-addr.arpa', C.reservedName],
  ['foo.alt', C.reservedName],
  ['https://www.example.test/path', C.reservedName],
  ['test', C.reservedName],
  ['local', C.reservedName],
  ['example', C.reservedName],
  ['onion', C.reservedName],
  ['arpa', C.reservedName],
  ['internal', C.reservedName],
  // A bare public suffix.
  ['com', C.publicSuffix],
  ['COM.', C.publicSuffix],
  ['co.uk', C.publicSuffix],
  ['uk', C.publicSuffix],
  ['de', C.publicSuffix],
  ['xn--p1ai', C.publicSuffix],
  ['рф', C.publicSuffix],
  ['foo.ck', C.publicSuffix],
  ['http://co.uk/', C.publicSuffix],
  // Single-label names.
  ['zzz', C.singleLabel],
  ['intranet', C.singleLabel],
  ['http://intranet/', C.singleLabel],
  ['router', C.singleLabel],
  ['a', C.singleLabel],
  ['foo-bar', C.singleLabel],
  // TLDs that are not delegated.
  ['foo.zzz', C.undelegatedTld],
  ['example.notatld', C.undelegatedTld],
  ['foo.bar.baz', C.undelegatedTld],
  ['example.corp', C.undelegatedTld],
  ['example.home', C.undelegatedTld],
  ['example.lan', C.undelegatedTld],
  ['foo.123', C.undelegatedTld],
  ['foo.0x10', C.undelegatedTld],
];

describe('normalizeDomain: accepted input', () => {
  it.each(validCases)('%j → %s', (input, domain, unicode, registrableDomain, publicSuffix) => {
    expect(normalizeDomain(input)).toEqual({
      valid: true,
      domain,
      unicode,
      registrableDomain,
      publicSuffix,
      isApex: domain === registrableDomain,
    });
  });

  it('reports isApex for the registrable domain only', () => {
    expect(normalizeDomain('example.co.uk')).toMatchObject({ valid: true, isApex: true });
    expect(normalizeDomain('www.example.co.uk')).toMatchObject({ valid: true, isApex: false });
    expect(normalizeDomain('foo.blogspot.com')).toMatchObject({ valid: true, isApex: false });
  });

  it('accepts exactly MAX_DOMAIN_LENGTH characters', () => {
    expect(name253).toHaveLength(MAX_DOMAIN_LENGTH);
    expect(normalizeDomain(name253).valid).toBe(true);
  });
});

describe('normalizeDomain: refused input', () => {
  it.each(invalidCases)('%j → %s', (input, code) => {
    const checked = normalizeDomain(input);
    expect(checked).toEqual({ valid: false, reason: { code, message: expect.any(String) } });
    if (checked.valid) return;
    // One short sentence, never an echo of a huge input.
    expect(checked.reason.message).toMatch(/^[^\n]{10,200}\.$/);
  });

  it('refuses an IDN whose Unicode form fits but whose ASCII form does not', () => {
    expect(longIdn.length).toBeLessThanOrEqual(MAX_DOMAIN_LENGTH);
    expect(domainToASCII(longIdn).length).toBeGreaterThan(MAX_DOMAIN_LENGTH);
  });
});

describe('normalizeDomain: arbitrary input never throws', () => {
  // A fixed-seed generator (Park–Miller) so any failure reproduces.
  function* codePoints(seed: number, count: number): Generator<string> {
    let state = seed;
    const pool = [0x00, 0x09, 0x20, 0x2e, 0x2f, 0x3a, 0x40, 0x5b, 0x5d, 0x25, 0x5c, 0x2d, 0x5f];
    for (let i = 0; i < count; i += 1) {
      const length = 1 + (i % 40);
      let text = '';
      for (let j = 0; j < length; j += 1) {
        state = (state * 48_271) % 2_147_483_647;
        const pick = state % 4;
        if (pick === 0) text += String.fromCodePoint(pool[state % pool.length] ?? 0x2e);
        else if (pick === 1) text += String.fromCodePoint(0x61 + (state % 26));
        else if (pick === 2) text += String.fromCodePoint(state % 0x3000);
        else
          text += String.fromCodePoint(
            state % 0x110000 >= 0xd800 && state % 0x110000 < 0xe000 ? 0x1f600 : state % 0x110000,
          );
      }
      yield text;
    }
  }
  const codes = new Set<string>(Object.values(INVALID_REASON_CODES));

  it('answers a known reason code, or a valid lower-case LDH domain, for 5,000 random strings', () => {
    for (const input of codePoints(20_260_101, 5_000)) {
      const checked = normalizeDomain(input);
      if (checked.valid) expect(checked.domain).toMatch(/^[a-z0-9.-]{1,253}$/);
      else expect(codes.has(checked.reason.code), JSON.stringify(input)).toBe(true);
    }
  });
});
