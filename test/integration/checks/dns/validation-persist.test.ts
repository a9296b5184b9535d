/** DNS-PERSIST-01 record parsing (draft-ietf-acme-dns-persist-01) and its findings, hostile input included. */
import { describe, expect, it } from 'vitest';
import {
  assessValidationPersist,
  MAX_PERSIST_RECORDS,
  parseValidationPersist,
} from '../../../../src/checks/dns/validation-persist.ts';

const NOW = new Date('2026-11-22T10:00:00Z');
const DAY_S = 86_400;
const nowSeconds = NOW.getTime() / 1000;
const LE = 'https://acme-v02.api.letsencrypt.org/acme/acct/123';

const parsed = (text: string) => {
  const result = parseValidationPersist(text);
  if (!result.ok) throw new Error(`expected a record, got: ${result.reason}`);
  return result.record;
};
const reason = (text: string) => {
  const result = parseValidationPersist(text);
  if (result.ok) throw new Error(`expected malformed, got ${JSON.stringify(result.record)}`);
  return result.reason;
};

/**
 * This process's CPU time since `started`, in ms: what a quadratic read would spend (seconds on
 * these inputs), not how busy the machine is. The bound is ten times a linear read's on a slow one.
 */
const cpuMs = (started: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
};
const CPU_BOUND_MS = 1_000;

describe('parseValidationPersist: the draft examples', () => {
  it('basic: issuer and accounturi, no policy, no persistUntil', () => {
    expect(parsed('authority.example; accounturi=https://ca.example/acct/123')).toEqual({
      issuer: 'authority.example',
      account_uri: 'https://ca.example/acct/123',
      policy: null,
      persist_until: null,
    });
  });

  it('wildcard policy and persistUntil 1721952000 (2024-07-26T00:00:00Z)', () => {
    expect(
      parsed(
        'authority.example; accounturi=https://ca.example/acct/123; policy=wildcard; persistUntil=1721952000',
      ),
    ).toEqual({
      issuer: 'authority.example',
      account_uri: 'https://ca.example/acct/123',
      policy: 'wildcard',
      persist_until: '2024-07-26T00:00:00Z',
    });
  });

  it('the character-strings of one record joined without separator parse as one record', () => {
    const strings = [
      'ca2.example;',
      ' accounturi=https://ca2.example/acme/acct/67890;',
      ' persistUntil=1767225600',
    ];
    expect(parsed(strings.join(''))).toMatchObject({
      issuer: 'ca2.example',
      persist_until: '2026-01-01T00:00:00Z',
    });
  });
});

describe('parseValidationPersist: syntax as the CA reads it', () => {
  it('tags are case-insensitive, policy values too; spaces and tabs around parts are allowed', () => {
    expect(parsed(`letsencrypt.org\t;\tAccountURI = ${LE} ;  POLICY=WildCard ; PERSISTUNTIL=0`)).toEqual({
      issuer: 'letsencrypt.org',
      account_uri: LE,
      policy: 'wildcard',
      persist_until: '1970-01-01T00:00:00Z',
    });
  });

  it('the accounturi value is kept as written (the CA compares it byte for byte)', () => {
    expect(parsed('letsencrypt.org; accounturi=HTTPS://ACME.Example/Acct/1?x=y').account_uri).toBe(
      'HTTPS://ACME.Example/Acct/1?x=y',
    );
  });

  it('ignores unknown tags, whatever they hold', () => {
    expect(parsed(`letsencrypt.org; accounturi=${LE}; future=1; x=; validationmethods=dns-01`)).toMatchObject(
      {
        issuer: 'letsencrypt.org',
        policy: null,
      },
    );
  });

  it('normalizes the issuer: lower case, no trailing dot, A-labels (draft-ietf-acme-dns-persist-01 §9.2)', () => {
    expect(parsed(`EXAMPLE.com.; accounturi=${LE}`).issuer).toBe('example.com');
    // The draft's §9.2 example prints xn--nicode-example-9jb.com, which is "énicode-example": a typo.
    expect(parsed(`üNICODE-example.com.; accounturi=${LE}`).issuer).toBe('xn--nicode-example-fsb.com');
    // A Cyrillic "е" is another name, not Let's Encrypt's.
    expect(parsed(`lеtsencrypt.org; accounturi=${LE}`).issuer).toMatch(/^xn--/);
  });

  it('reports any policy other than wildcard as absent, as the draft and CAs treat it', () => {
    expect(parsed(`letsencrypt.org; accounturi=${LE}; policy=subdomains`).policy).toBeNull();
    expect(parsed(`letsencrypt.org; accounturi=${LE}; policy=`).policy).toBeNull();
    expect(parsed(`letsencrypt.org; accounturi=${LE}; policy=wildcards`).policy).toBeNull();
  });

  it('a hyphenated tag is valid (RFC 8659 §4.2 tag) and ignored as unknown, yet noted for the CA', () => {
    const result = parseValidationPersist(`letsencrypt.org; accounturi=${LE}; future-ext=1; a--b=2`);
    expect(result).toMatchObject({ ok: true, hyphenatedTags: ['future-ext', 'a--b'] });
    // RFC 8659's tag starts and ends with a letter or digit.
    expect(reason(`letsencrypt.org; accounturi=${LE}; -ext=1`)).toMatch(/tag "-ext" is not letters/);
    expect(reason(`letsencrypt.org; accounturi=${LE}; ext-=1`)).toMatch(/tag "ext-" is not letters/);
  });

  it('an integer persistUntil past the year 9999 (or before 0000) is valid, shown at the edge of RFC 3339', () => {
    expect(parsed(`letsencrypt.org; accounturi=${LE}; persistUntil=253402300800`).persist_until).toBe(
      '9999-12-31T23:59:59Z',
    );
    expect(parsed(`letsencrypt.org; accounturi=${LE}; persistUntil=${'9'.repeat(400)}`).persist_until).toBe(
      '9999-12-31T23:59:59Z',
    );
    expect(parsed(`letsencrypt.org; accounturi=${LE}; persistUntil=-${'9'.repeat(30)}`).persist_until).toBe(
      '0000-01-01T00:00:00Z',
    );
  });

  it('accepts a signed persistUntil as an integer (a past time)', () => {
    expect(parsed(`letsencrypt.org; accounturi=${LE}; persistUntil=-86400`).persist_until).toBe(
      '1969-12-31T00:00:00Z',
    );
    expect(parsed(`letsencrypt.org; accounturi=${LE}; persistUntil=+0001798761600`).persist_until).toBe(
      '2027-01-01T00:00:00Z',
    );
  });
});

describe('parseValidationPersist: hostile and malformed input', () => {
  it.each([
    ['', /no issuer/],
    ['   ', /no issuer/],
    [';', /no issuer/],
    [`; accounturi=${LE}`, /no issuer/],
    ['letsencrypt.org', /no accounturi/],
    ['letsencrypt.org; accounturi=', /no accounturi/],
    ['letsencrypt.org; policy=wildcard', /no accounturi/],
    [`letsencrypt.org; accounturi=${LE};`, /empty parameter/],
    [`letsencrypt.org;; accounturi=${LE}`, /empty parameter/],
    [`letsencrypt.org; accounturi ${LE}`, /not tag=value/],
    [`letsencrypt.org; =${LE}`, /tag "" is not letters/],
    [`letsencrypt.org; account-uri=${LE}`, /no accounturi/],
    [
      `letsencrypt.org; accounturi=${LE}; accounturi=https://evil.example/acct/1`,
      /accounturi parameter appears twice/,
    ],
    [`letsencrypt.org; accounturi=${LE}; AccountUri=${LE}`, /appears twice/],
    [`letsencrypt.org; accounturi=${LE}; policy=wildcard; policy=wildcard`, /policy parameter appears twice/],
    [`letsencrypt.org; accounturi=${LE}; persistUntil=1; persistUntil=2`, /appears twice/],
    [`letsencrypt.org; accounturi=${LE}; persistUntil=tomorrow`, /not a base-10 UNIX time/],
    [`letsencrypt.org; accounturi=${LE}; persistUntil=1.8e9`, /not a base-10 UNIX time/],
    [`letsencrypt.org; accounturi=${LE}; persistUntil=0x6b3c0000`, /not a base-10 UNIX time/],
    [`letsencrypt.org; accounturi=${LE}; persistUntil=`, /not a base-10 UNIX time/],
    [`letsencrypt.org; accounturi=${LE}; persistUntil=１７９８７６１６００`, /non-ASCII/],
    [`letsencrypt.org; accounturi=${LE}; acc_uri=1`, /tag "acc_uri" is not letters/],
    [`letsencrypt.org; accounturi=${LE} evil`, /holds a space/],
    [`letsencrypt.org; accounturi=https://ca.example/äcct`, /non-ASCII/],
    [`letsencrypt.org; accounturi=${LE}\u0000`, /control character/],
    [`"letsencrypt.org; accounturi=${LE}"`, /literal quote characters/],
    [`lets encrypt.org; accounturi=${LE}`, /not a domain name/],
    [`letsencrypt..org; accounturi=${LE}`, /not a domain name/],
    [`${'a'.repeat(64)}.org; accounturi=${LE}`, /not a domain name/],
    [`${'abcdefghi.'.repeat(26)}org; accounturi=${LE}`, /not a domain name/],
    ['<html><body>502 Bad Gateway</body></html>', /not a domain name/],
    ['v=spf1 include:_spf.google.com ~all', /not a domain name/],
  ])('%j is malformed (%s)', (text, expected) => {
    expect(reason(text)).toMatch(expected);
  });

  it('parses a 64 KB record and one with 10,000 parameters quickly, without echoing them whole', () => {
    const longUri = `https://ca.example/acct/${'x'.repeat(65_000)}`;
    expect(parsed(`letsencrypt.org; accounturi=${longUri}`).account_uri).toHaveLength(longUri.length);
    const many = `letsencrypt.org; accounturi=${LE}${'; x=1'.repeat(10_000)}`;
    const started = process.cpuUsage();
    expect(parsed(many).issuer).toBe('letsencrypt.org');
    expect(cpuMs(started)).toBeLessThan(CPU_BOUND_MS);
    const { findings } = assessValidationPersist(
      'shop.example',
      [`letsencrypt.org; accounturi=${LE}; x${'y'.repeat(5_000)}`],
      NOW,
    );
    expect(findings[0]?.evidence?.length).toBeLessThanOrEqual(301);
  });
});

describe('parseValidationPersist: time on a record of 64 KiB (one TXT record at most)', () => {
  it('a record full of white space inside its parts is read at once (no quadratic trimming)', () => {
    const spaces = ' '.repeat(60_000);
    const started = process.cpuUsage();
    expect(parseValidationPersist(`x${spaces}x; accounturi=${LE}`)).toMatchObject({ ok: false });
    expect(parseValidationPersist(`letsencrypt.org; accounturi=${LE}; p${spaces}x=1`)).toMatchObject({
      ok: false,
    });
    expect(cpuMs(started)).toBeLessThan(CPU_BOUND_MS);
  });
});

describe('assessValidationPersist', () => {
  const record = (persistUntil?: number, issuer = 'letsencrypt.org') =>
    `${issuer}; accounturi=${LE}${persistUntil === undefined ? '' : `; persistUntil=${persistUntil}`}`;
  const codes = (txt: string[]) =>
    assessValidationPersist('shop.example', txt, NOW).findings.map((f) => `${f.code}:${f.severity}`);

  it('no record: an empty list and no finding', () => {
    expect(assessValidationPersist('shop.example', [], NOW)).toEqual({ records: [], findings: [] });
  });

  it('several records, one per CA: each reported, in answer order', () => {
    const { records, findings } = assessValidationPersist(
      'shop.example',
      [record(undefined), record(nowSeconds + 400 * DAY_S, 'pki.goog')],
      NOW,
    );
    expect(records.map((r) => r.issuer)).toEqual(['letsencrypt.org', 'pki.goog']);
    expect(findings).toEqual([]);
  });

  it('persistUntil within 30 days: dns.validation_persist_expiring with the date and days left', () => {
    const { findings } = assessValidationPersist('shop.example', [record(nowSeconds + 12 * DAY_S)], NOW);
    expect(findings).toEqual([
      expect.objectContaining({ code: 'dns.validation_persist_expiring', severity: 'warning' }),
    ]);
    expect(findings[0]?.message).toContain('expires on 2026-12-04');
    expect(findings[0]?.message).toContain('in 12 days');
    expect(findings[0]?.message).toContain('_validation-persist.shop.example for letsencrypt.org');
    expect(findings[0]?.evidence).toBe(record(nowSeconds + 12 * DAY_S));
  });

  it('the boundary: exactly 30 days is expiring, 30 days and a second is not', () => {
    expect(codes([record(nowSeconds + 30 * DAY_S)])).toEqual(['dns.validation_persist_expiring:warning']);
    expect(codes([record(nowSeconds + 30 * DAY_S + 1)])).toEqual([]);
  });

  it('persistUntil already past: the finding says expired', () => {
    const { findings } = assessValidationPersist('shop.example', [record(nowSeconds - 3 * DAY_S)], NOW);
    expect(findings[0]?.code).toBe('dns.validation_persist_expiring');
    expect(findings[0]?.message).toContain('expired on 2026-11-19');
    expect(findings[0]?.message).toContain('refuses new validations');
  });

  it('malformed records are left out and named in one finding with the first reason and a count', () => {
    const { records, findings } = assessValidationPersist(
      'shop.example',
      ['garbage', record(undefined), `"${record(undefined)}"`, 'letsencrypt.org; accounturi=a; accounturi=b'],
      NOW,
    );
    expect(records).toHaveLength(1);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      code: 'dns.validation_persist_malformed',
      severity: 'warning',
      evidence: 'garbage',
    });
    expect(findings[0]?.message).toContain('and 2 more malformed records');
  });

  it(`reports at most ${MAX_PERSIST_RECORDS} records however many the zone holds`, () => {
    const txt = Array.from({ length: 500 }, (_, i) => record(undefined, `ca${i}.example`));
    expect(assessValidationPersist('shop.example', txt, NOW).records).toHaveLength(MAX_PERSIST_RECORDS);
  });
});

describe('assessValidationPersist: what the CA will do with the record', () => {
  it("a hyphenated tag: dns.validation_persist_hyphenated_tag (info) saying Let's Encrypt may refuse it, not malformed", () => {
    const text = `letsencrypt.org; accounturi=${LE}; future-ext=1`;
    const { records, findings } = assessValidationPersist('shop.example', [text], NOW);
    expect(records).toHaveLength(1);
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'dns.validation_persist_hyphenated_tag',
        severity: 'info',
        evidence: text,
      }),
    ]);
    expect(findings[0]?.message).toMatch(/`future-ext`.*RFC 8659 allows.*may refuse the record/);
    expect(findings[0]?.message).toMatch(/staging environment only so far/);
  });

  it("says Let's Encrypt offers DNS-PERSIST-01 in staging only, for its records alone", () => {
    const soon = NOW.getTime() / 1000 + 5 * 86_400;
    const { findings } = assessValidationPersist(
      'shop.example',
      [
        `letsencrypt.org; accounturi=${LE}; persistUntil=${soon}`,
        `pki.goog; accounturi=${LE}; persistUntil=${soon}`,
      ],
      NOW,
    );
    expect(findings.map((f) => f.code)).toEqual([
      'dns.validation_persist_expiring',
      'dns.validation_persist_expiring',
    ]);
    expect(findings[0]?.message).toMatch(
      /Let's Encrypt offers DNS-PERSIST-01 in its staging environment only/,
    );
    expect(findings[1]?.message).not.toMatch(/staging/);
  });
});
