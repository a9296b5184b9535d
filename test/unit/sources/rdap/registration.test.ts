/** RDAP domain-object parsing: tolerance for real-world variation, and refusal of what is not a domain. */
import { describe, expect, it } from 'vitest';
import {
  parseRdapDate,
  parseRegistration,
  type RdapRegistration,
} from '../../../../src/sources/rdap/registration.ts';

const registrar = (extra: object = {}) => ({
  objectClassName: 'entity',
  roles: ['registrar'],
  publicIds: [{ type: 'IANA Registrar ID', identifier: '9999' }],
  vcardArray: [
    'vcard',
    [
      ['version', {}, 'text', '4.0'],
      ['fn', {}, 'text', 'Example Registrar LLC'],
    ],
  ],
  ...extra,
});

function parsed(json: unknown): RdapRegistration {
  const result = parseRegistration(json);
  if (typeof result === 'string') throw new Error(result);
  return result;
}

describe('parseRegistration', () => {
  it('reads the reference example, `\\/` escapes included', () => {
    const text =
      '{"objectClassName":"domain","ldhName":"EXAMPLE.COM","links":[{"rel":"related","href":"https:\\/\\/rdap.registrar.test\\/domain\\/EXAMPLE.COM","type":"application\\/rdap+json"}],"status":["client transfer prohibited"],"events":[{"eventAction":"expiration","eventDate":"2027-01-02T03:04:05Z"}]}';
    const registration = parsed(JSON.parse(text));
    expect(registration.referral?.href).toBe('https://rdap.registrar.test/domain/EXAMPLE.COM');
    expect(registration.ldhName).toBe('example.com');
    expect(registration.expiresAt?.toISOString()).toBe('2027-01-02T03:04:05.000Z');
  });

  it('ignores unknown members and drops malformed array items instead of failing', () => {
    const registration = parsed({
      objectClassName: 'domain',
      lang: 'en',
      redacted: [{ name: { type: 'Registrant Name' } }],
      status: ['active', 42, null],
      events: [
        { eventAction: 'registration' },
        { eventAction: 'registration', eventDate: '2001-01-02T03:04:05Z', eventActor: 'x' },
        'junk',
      ],
      nameservers: [
        { objectClassName: 'nameserver' },
        { ldhName: 'NS1.EXAMPLE.NET.' },
        { ldhName: 'ns1.example.net' },
      ],
      entities: [{ roles: 'registrar' }, registrar({ unknown: true })],
      secureDNS: { zoneSigned: true },
    });
    expect(registration).toMatchObject({
      status: ['active'],
      registeredAt: new Date('2001-01-02T03:04:05Z'),
      nameservers: ['ns1.example.net'],
      registrar: { name: 'Example Registrar LLC', ianaId: '9999' },
      delegationSigned: false,
    });
  });

  it('leaves registrar fields null when the entity is absent, redacted or lacks publicIds', () => {
    expect(parsed({ objectClassName: 'domain' }).registrar).toEqual({ name: null, ianaId: null });
    const redacted = parsed({
      entities: [registrar({ publicIds: undefined, vcardArray: ['vcard', [['fn', {}, 'text', '  ']]] })],
    });
    expect(redacted.registrar).toEqual({ name: null, ianaId: null });
    const numericId = parsed({
      entities: [registrar({ publicIds: [{ type: 'iana registrar id', identifier: 292 }] })],
    });
    expect(numericId.registrar.ianaId).toBe('292');
  });

  it('takes the registry expiration, not a registrar expiration', () => {
    const registration = parsed({
      events: [
        { eventAction: 'registrar expiration', eventDate: '2030-01-01T00:00:00Z' },
        { eventAction: 'expiration', eventDate: '2027-01-01T00:00:00Z' },
        { eventAction: 'last update of RDAP database', eventDate: '2026-11-01T00:00:00Z' },
        { eventAction: 'last changed', eventDate: '2026-06-01T00:00:00Z' },
      ],
    });
    expect(registration.expiresAt).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(registration.updatedAt).toEqual(new Date('2026-06-01T00:00:00Z'));
  });

  // Events of recorded answers: the registry's own (Verisign, google.com) and a registrar's
  // (rdap.markmonitor.com, github.com, from bbot's rdap_samples). RFC 9083 §4.5: `last update of
  // RDAP database` is when the server's database was refreshed, never a change of the domain.
  const RECORDED = {
    'rdap.verisign.com google.com': [
      { eventAction: 'registration', eventDate: '1997-09-15T04:00:00Z' },
      { eventAction: 'expiration', eventDate: '2028-09-14T04:00:00Z' },
      { eventAction: 'last changed', eventDate: '2019-09-09T15:39:04Z' },
      { eventAction: 'last update of RDAP database', eventDate: '2024-07-29T10:43:38Z' },
    ],
    'rdap.markmonitor.com github.com': [
      { eventAction: 'last changed', eventDate: '2024-09-07T09:16:33.000+00:00' },
      { eventAction: 'registrar expiration', eventDate: '2028-10-09T18:20:50.000+00:00' },
      { eventAction: 'expiration', eventDate: '2028-10-09T00:00:00.000+00:00' },
      { eventAction: 'registration', eventDate: '2007-10-09T18:20:50.000+00:00' },
      { eventAction: 'last update of RDAP database', eventDate: '2026-10-01T21:00:23.000+00:00' },
    ],
  };

  it.each([
    ['rdap.verisign.com google.com', '2019-09-09T15:39:04Z', '2024-07-29T10:43:38Z'],
    ['rdap.markmonitor.com github.com', '2024-09-07T09:16:33Z', '2026-10-01T21:00:23Z'],
  ] as const)(
    'recorded %s with both events: updated_at is last changed, the refresh only rdapUpdatedAt',
    (recording, changed, refreshed) => {
      const registration = parsed({ objectClassName: 'domain', events: RECORDED[recording] });
      expect(registration.updatedAt).toEqual(new Date(changed));
      expect(registration.rdapUpdatedAt).toEqual(new Date(refreshed));
    },
  );

  it('an answer without a last changed event (github.com, its `last changed` removed): updatedAt is null', () => {
    const events = RECORDED['rdap.markmonitor.com github.com'].filter(
      (e) => e.eventAction !== 'last changed',
    );
    const registration = parsed({ objectClassName: 'domain', ldhName: 'github.com', events });
    expect(registration.updatedAt).toBeNull();
    expect(registration.rdapUpdatedAt).toEqual(new Date('2026-10-01T21:00:23Z'));
    expect(registration.expiresAt).toEqual(new Date('2028-10-09T00:00:00Z'));
  });

  it('only follows a related link of the RDAP type over http(s)', () => {
    const links = (link: object) => parsed({ links: [link] }).referral;
    expect(links({ rel: 'related', href: 'https://r.test/about', type: 'text/html' })).toBeNull();
    expect(links({ rel: 'self', href: 'https://r.test/d', type: 'application/rdap+json' })).toBeNull();
    expect(links({ rel: 'related', href: 'ftp://r.test/d', type: 'application/rdap+json' })).toBeNull();
    expect(
      links({ rel: 'Related', href: 'https://r.test/d', type: 'application/rdap+json; charset=utf-8' })?.href,
    ).toBe('https://r.test/d');
  });

  it('drops credentials from the referral, so they are neither sent nor reported', () => {
    const referral = parsed({
      links: [{ rel: 'related', href: 'https://u:p@r.test/d', type: 'application/rdap+json' }],
    }).referral;
    expect(referral?.href).toBe('https://r.test/d');
  });

  it.each([
    ['secureDNS', { delegationSigned: true }, true],
    ['secureDns', { delegationSigned: true }, true],
    ['SECUREDNS', { delegationSigned: true }, true],
    ['secureDns', { dsData: [{ keyTag: 1, algorithm: 13, digestType: 2, digest: 'AB' }] }, true],
    ['secureDNS', { delegationSigned: false, keyData: [{ flags: 257, algorithm: 13 }] }, true],
    ['secureDNS', { delegationSigned: false, dsData: [] }, false],
    ['secureDns', { zoneSigned: true }, false],
    ['secureDNS', 'yes', false],
  ])('reads DNSSEC from %s %j as %s', (member, value, signed) => {
    expect(parsed({ [member]: value }).delegationSigned).toBe(signed);
  });

  it('names the registrar from the jCard fn, else org (text or structured)', () => {
    const named = (properties: unknown[]) =>
      parsed({
        entities: [registrar({ vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ...properties]] })],
      }).registrar.name;
    expect(
      named([
        ['org', {}, 'text', 'Org Name'],
        ['fn', {}, 'text', 'Fn Name'],
      ]),
    ).toBe('Fn Name');
    expect(
      named([
        ['fn', {}, 'text', ' '],
        ['org', {}, 'text', 'Gandi SAS'],
      ]),
    ).toBe('Gandi SAS');
    expect(named([['ORG', {}, 'text', ['Key-Systems GmbH', 'Registrar unit']]])).toBe('Key-Systems GmbH');
    expect(named([['org', {}, 'text', 42]])).toBeNull();
  });

  it('reads legacy event names and skips unknown ones', () => {
    const registration = parsed({
      events: [
        { eventAction: 'domain enqueued for transfer', eventDate: '2026-01-01T00:00:00Z' },
        { eventAction: 'Registration Date', eventDate: '2010-01-01T00:00:00+0000' },
        { eventAction: 'EXPIRATION_DATE', eventDate: '2027-01-01T00:00:00+0000' },
        { eventAction: 'last-modified', eventDate: '2026-06-01T00:00:00-0130' },
      ],
    });
    expect(registration.registeredAt).toEqual(new Date('2010-01-01T00:00:00Z'));
    expect(registration.expiresAt).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(registration.updatedAt).toEqual(new Date('2026-06-01T01:30:00Z'));
  });

  it('refuses what is not a domain object', () => {
    expect(typeof parseRegistration([1, 2])).toBe('string');
    expect(typeof parseRegistration('domain')).toBe('string');
    expect(parseRegistration({ objectClassName: 'entity', handle: '292' })).toContain('entity');
  });
});

describe('parseRdapDate', () => {
  it.each([
    ['2027-01-02T03:04:05Z', '2027-01-02T03:04:05.000Z'],
    ['2027-01-02T03:04:05.123456Z', '2027-01-02T03:04:05.123Z'],
    ['2027-01-02T03:04:05+02:00', '2027-01-02T01:04:05.000Z'],
    ['2027-01-02T03:04:05.5-05:00', '2027-01-02T08:04:05.500Z'],
    ['2027-01-02T03:04:05', '2027-01-02T03:04:05.000Z'],
    ['2027-01-02T03:04:05+0000', '2027-01-02T03:04:05.000Z'],
    ['2027-01-02T03:04:05.25+0530', '2027-01-01T21:34:05.250Z'],
  ])('reads %s', (text, iso) => {
    expect(parseRdapDate(text)?.toISOString()).toBe(iso);
  });

  it.each(['', '2027-01-02', 'next tuesday', '2027-13-45T99:00:00Z', '2027-01-02T03:04:05+00000'])(
    'refuses %j',
    (text) => {
      expect(parseRdapDate(text)).toBeNull();
    },
  );
});
