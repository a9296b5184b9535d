/**
 * Free-work keys from hostile client addresses: one key per IPv4 client whatever its spelling, one
 * per IPv6 /64, and nothing believed that is not an address — on Node's peer and trusted
 * `X-Forwarded-For`, and on the Worker's `CF-Connecting-IP`.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  addressKey,
  canonicalAddress,
  type ClientKey,
  connectingIpClient,
  peerClient,
  UNATTRIBUTED,
} from '../../../src/ops/client-address.ts';

/** Values that are not an address, from a client or a misbehaving proxy. */
const NOT_ADDRESSES = [
  '',
  ' ',
  'not-an-ip',
  'unknown',
  '203.0.113.7:8080',
  '203.0.113.7:PORT',
  '[2001:db8::1]',
  '[2001:db8::1]:443',
  '::ffff:203.0.113.7:80',
  '1.2.3',
  '01.2.3.4',
  '999.1.1.1',
  '0x7f.0.0.1',
  '1.2.3.4%eth0',
  '１.２.３.４',
  '203.0.113.7\u0000',
  '2001:db8::1::2',
  '2001:db8:1:2:3:4:5:6:7',
  '9'.repeat(4096),
  `::ffff:${'1'.repeat(4096)}`,
  `2001:db8::1%${'x'.repeat(4096)}`,
];

/** The same as header values: bytes, as a proxy would pass them on (a header cannot carry NUL). */
const NOT_ADDRESS_HEADERS = NOT_ADDRESSES.filter((value) => !value.includes('\u0000')).map((value) =>
  Buffer.from(value, 'utf8').toString('latin1'),
);

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['0:0:0:0:0:ffff:cb00:7107', '203.0.113.7'],
    ['0000:0000:0000:0000:0000:FFFF:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    // NAT64 is a different client from the IPv4 address it embeds: keyed by its /64 like any IPv6.
    ['64:ff9b::cb00:7107', '64:ff9b:0:0::/64'],
  ])('%s → %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('puts every address of one /64 in one bucket and the next /64 in another', () => {
    const keys = new Set(
      ['2001:db8:a:b::1', '2001:db8:a:b:1:2:3:4', '2001:db8:a:b:dead:beef::'].map(addressKey),
    );
    expect([...keys]).toEqual(['2001:db8:a:b::/64']);
    expect(addressKey('2001:db8:a:c::1')).not.toBe(addressKey('2001:db8:a:b::1'));
  });

  it.each(
    NOT_ADDRESSES.map((value) => [
      value.length > 40 ? `${value.slice(0, 20)}… (${value.length})` : value,
      value,
    ]),
  )('has no key for %j', (_label, value) => {
    expect(addressKey(value)).toBeUndefined();
    expect(canonicalAddress(value)).toBeUndefined();
  });
});

/** What `key` makes of a request with `headers`, from `peer` (no socket when undefined). */
async function keyOf(key: ClientKey, headers: Record<string, string>, peer?: string): Promise<string> {
  const app = new Hono().get('/', (c) => c.text(String(key(c))));
  const env = peer === undefined ? undefined : { incoming: { socket: { remoteAddress: peer } } };
  return (await app.request('/', { headers }, env)).text();
}

describe('peerClient (Node)', () => {
  const behindProxies = peerClient(['192.0.2.10', '2001:DB8:0:0::10']);

  it('is the peer, by its canonical key, when no proxy is trusted; X-Forwarded-For is ignored', async () => {
    const direct = peerClient([]);
    expect(await keyOf(direct, { 'x-forwarded-for': '198.51.100.1' }, '::ffff:203.0.113.7')).toBe(
      '203.0.113.7',
    );
    expect(await keyOf(direct, {}, '2001:db8:5:6:7:8:9:a')).toBe('2001:db8:5:6::/64');
    expect(await keyOf(direct, {}, undefined)).toBe('undefined');
  });

  it('believes a trusted proxy (whatever its spelling) and keys the forwarded client canonically', async () => {
    const cases: [string, string, string][] = [
      ['::ffff:192.0.2.10', '198.51.100.1', '198.51.100.1'],
      ['192.0.2.10', '2001:db8:5:6::1', '2001:db8:5:6::/64'],
      ['192.0.2.10', '::ffff:c633:6401', '198.51.100.1'],
      ['2001:db8::10', ' 198.51.100.1 ', '198.51.100.1'],
      // Left of the first untrusted hop is the client's own claim.
      ['192.0.2.10', '203.0.113.99, 198.51.100.1', '198.51.100.1'],
      ['192.0.2.10', '198.51.100.1, 2001:db8::10', '198.51.100.1'],
    ];
    for (const [peer, forwarded, key] of cases)
      expect(
        await keyOf(behindProxies, { 'x-forwarded-for': forwarded }, peer),
        `${peer} ← ${forwarded}`,
      ).toBe(key);
  });

  it('ignores an X-Forwarded-For entry that is not an address: the last trusted hop is the client', async () => {
    for (const value of NOT_ADDRESS_HEADERS) {
      expect(await keyOf(behindProxies, { 'x-forwarded-for': value }, '192.0.2.10'), value.slice(0, 30)).toBe(
        '192.0.2.10',
      );
      // A bad right-most entry also hides the claims left of it.
      expect(await keyOf(behindProxies, { 'x-forwarded-for': `198.51.100.1, ${value}` }, '192.0.2.10')).toBe(
        '192.0.2.10',
      );
    }
    expect(
      await keyOf(
        behindProxies,
        { 'x-forwarded-for': '198.51.100.1, not-an-ip, 2001:db8::10' },
        '192.0.2.10',
      ),
    ).toBe('2001:db8:0:0::/64');
  });

  it('never believes X-Forwarded-For or CF-Connecting-IP from an untrusted peer', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.1', 'cf-connecting-ip': '198.51.100.2' };
    expect(await keyOf(behindProxies, headers, '2001:db8:9:9::1')).toBe('2001:db8:9:9::/64');
    expect(await keyOf(behindProxies, headers, '203.0.113.5')).toBe('203.0.113.5');
  });
});

describe('connectingIpClient (Worker)', () => {
  it('keys CF-Connecting-IP canonically', async () => {
    expect(await keyOf(connectingIpClient, { 'cf-connecting-ip': '198.51.100.1' })).toBe('198.51.100.1');
    expect(await keyOf(connectingIpClient, { 'cf-connecting-ip': '::ffff:c633:6401' })).toBe('198.51.100.1');
    expect(await keyOf(connectingIpClient, { 'cf-connecting-ip': '2001:db8:7:8::42' })).toBe(
      '2001:db8:7:8::/64',
    );
  });

  it('puts a request without a usable CF-Connecting-IP in the one shared bucket, whatever else it claims', async () => {
    expect(await keyOf(connectingIpClient, { 'x-forwarded-for': '198.51.100.1' })).toBe(UNATTRIBUTED);
    for (const value of NOT_ADDRESS_HEADERS)
      expect(await keyOf(connectingIpClient, { 'cf-connecting-ip': value }), value.slice(0, 30)).toBe(
        UNATTRIBUTED,
      );
  });
});
