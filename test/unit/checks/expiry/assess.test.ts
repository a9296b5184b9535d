/** Pure expiry analysis: days left, thresholds, status findings, missing dates, not registered; schema-valid. */
import { describe, expect, it } from 'vitest';
import { assessExpiry, daysUntil } from '../../../../src/checks/expiry/assess.ts';
import { expiryResultSchema } from '../../../../src/checks/expiry/result.ts';
import type { RdapRegistration } from '../../../../src/sources/rdap/registration.ts';

const NOW = new Date('2026-11-22T10:00:00Z');
const DAY_MS = 86_400_000;
const SERVER = new URL('https://rdap.verisign.com/com/v1/');
const SOURCES = [
  { name: 'rdap-bootstrap', url: 'https://data.iana.org/rdap/dns.json', ok: true, ms: 0, cached: true },
  { name: 'rdap', url: SERVER.href, ok: true, ms: 84.6, cached: false },
];

function registration(extra: Partial<RdapRegistration> = {}): RdapRegistration {
  return {
    ldhName: 'healthy-shop.com',
    registrar: { name: 'MarkMonitor Inc.', ianaId: '292' },
    registeredAt: new Date('2009-05-14T17:22:08Z'),
    expiresAt: new Date(NOW.getTime() + 400 * DAY_MS),
    updatedAt: new Date('2026-10-08T12:00:00.250Z'),
    rdapUpdatedAt: new Date('2026-11-22T09:58:12Z'),
    status: ['client transfer prohibited'],
    nameservers: ['ns1.healthy-shop.com'],
    delegationSigned: false,
    referral: null,
    ...extra,
  };
}

function assess(extra: Partial<RdapRegistration> = {}) {
  const result = assessExpiry(
    'healthy-shop.com',
    { kind: 'registered', server: SERVER, registration: registration(extra), sources: SOURCES },
    NOW,
  );
  return expiryResultSchema.parse(result);
}
const codes = (result: ReturnType<typeof assess>) => result.findings.map((f) => `${f.code}:${f.severity}`);
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY_MS);

describe('assessExpiry (registered)', () => {
  it('builds the contract fields for a healthy registration, with no findings', () => {
    const result = assess({ status: ['client delete prohibited', 'client transfer prohibited', 'active'] });
    expect(result).toMatchObject({
      domain: 'healthy-shop.com',
      checked_at: '2026-11-22T10:00:00Z',
      registered: true,
      registrar: { name: 'MarkMonitor Inc.', iana_id: '292' },
      registered_at: '2009-05-14T17:22:08Z',
      expires_at: '2027-12-27T10:00:00Z',
      updated_at: '2026-10-08T12:00:00Z',
      rdap_updated_at: '2026-11-22T09:58:12Z',
      days_left: 400,
      status: ['clientDeleteProhibited', 'clientTransferProhibited', 'ok'],
      status_rdap: ['client delete prohibited', 'client transfer prohibited', 'active'],
      nameservers: ['ns1.healthy-shop.com'],
      dnssec_delegated: false,
      rdap_server: 'https://rdap.verisign.com/com/v1/',
      disclaimer: 'Results are data, not guarantees.',
    });
    expect(result.sources).toEqual(SOURCES);
    expect(result.findings).toEqual([]);
  });

  it.each([
    [31, []],
    [30, ['expiry.expires_soon:warning']],
    [8, ['expiry.expires_soon:warning']],
    [7, ['expiry.expires_soon:critical']],
    [0.5, ['expiry.expires_soon:critical']],
  ])('at %d days left finds %j', (days, expected) => {
    const result = assess({ expiresAt: inDays(days) });
    expect(codes(result)).toEqual(expected);
    expect(result.days_left).toBe(Math.floor(days));
  });

  it('says "within a day" on the last day', () => {
    expect(assess({ expiresAt: inDays(0.2) }).findings[0]?.message).toContain('within a day');
  });

  it('finds an expired registration, with negative days left and the date as evidence', () => {
    const result = assess({ expiresAt: inDays(-12.5) });
    expect(result.days_left).toBe(-13);
    expect(result.findings).toEqual([
      {
        code: 'expiry.expired',
        severity: 'critical',
        message: 'The registration expired 12 days ago and has not been renewed.',
        evidence: '2026-11-09T22:00:00Z',
      },
    ]);
  });

  it('treats the exact expiry instant as expired', () => {
    expect(codes(assess({ expiresAt: NOW }))).toEqual(['expiry.expired:critical']);
  });

  it('reports a missing expiration event (.no, .fi style) as info, not an error', () => {
    const result = assess({ expiresAt: null, status: ['active'] });
    expect(result).toMatchObject({ expires_at: null, days_left: null, status: ['ok'] });
    expect(codes(result)).toEqual(['expiry.no_expiry_date:info']);
  });

  it.each([
    [['client hold'], 'clientHold'],
    [['server hold', 'client transfer prohibited'], 'serverHold'],
    [['client hold', 'server hold'], 'clientHold, serverHold'],
  ])('finds a hold in %j', (status, evidence) => {
    const result = assess({ status });
    expect(result.findings).toEqual([
      expect.objectContaining({ code: 'expiry.hold', severity: 'critical', evidence }),
    ]);
  });

  it.each([
    [['pending delete'], 'pendingDelete'],
    [['redemption period', 'pending delete'], 'redemptionPeriod, pendingDelete'],
  ])('finds the deletion cycle in %j', (status, evidence) => {
    const result = assess({ status, expiresAt: inDays(200) });
    expect(result.findings).toEqual([
      expect.objectContaining({ code: 'expiry.pending_delete', severity: 'critical', evidence }),
    ]);
  });

  it('combines an expired date, a hold and redemption in one result', () => {
    const result = assess({
      expiresAt: inDays(-40),
      status: ['redemption period', 'pending delete', 'server hold'],
    });
    expect(codes(result)).toEqual([
      'expiry.expired:critical',
      'expiry.hold:critical',
      'expiry.pending_delete:critical',
    ]);
  });

  it('does not mistake transfer locks or grace periods for hold or deletion', () => {
    const status = [
      'server transfer prohibited',
      'auto renew period',
      'pending transfer',
      'pending restore',
      'inactive',
    ];
    const result = assess({ status });
    expect(result.status).toEqual([
      'serverTransferProhibited',
      'autoRenewPeriod',
      'pendingTransfer',
      'pendingRestore',
      'inactive',
    ]);
    expect(result.findings).toEqual([]);
  });

  it('keeps unknown registrar and dates as null', () => {
    const result = assess({ registrar: { name: null, ianaId: null }, registeredAt: null, updatedAt: null });
    expect(result).toMatchObject({
      registrar: { name: null, iana_id: null },
      registered_at: null,
      updated_at: null,
    });
  });
});

describe('assessExpiry (not registered)', () => {
  it('returns registered: false with an expiry.not_registered finding', () => {
    const result = expiryResultSchema.parse(
      assessExpiry('never-registered.net', { kind: 'not_registered', server: SERVER, sources: SOURCES }, NOW),
    );
    expect(result).toMatchObject({
      registered: false,
      domain: 'never-registered.net',
      expires_at: null,
      days_left: null,
      status: [],
      nameservers: [],
      rdap_server: SERVER.href,
    });
    expect(result.findings.map((f) => f.code)).toEqual(['expiry.not_registered']);
  });
});

describe('daysUntil', () => {
  it('rounds down to whole days', () => {
    expect(daysUntil(inDays(1.99), NOW)).toBe(1);
    expect(daysUntil(inDays(-0.01), NOW)).toBe(-1);
  });
});
