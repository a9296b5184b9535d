/** The SSRF address policy: every special-purpose range, in every spelling the resolver could give. */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyAddress, ipv6Words } from '../../../../src/sources/public-fetch/address-policy.ts';
import { ADDRESS_CASES } from './address-cases.ts';

describe('classifyAddress', () => {
  it('has a table of at least 40 cases', () => {
    expect(ADDRESS_CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(ADDRESS_CASES)('%j → %s', (address, range) => {
    const verdict = classifyAddress(address);
    if (range === null) expect(verdict).toEqual({ allowed: true });
    else expect(verdict).toMatchObject({ allowed: false, range });
  });

  it('marks cloud metadata endpoints, and only them, so PROBE_ALLOW_PRIVATE cannot open them', () => {
    const metadata = ADDRESS_CASES.filter(([address]) => {
      const verdict = classifyAddress(address);
      return !verdict.allowed && verdict.metadata === true;
    }).map(([address]) => address);
    expect(metadata).toEqual([
      '169.254.169.254',
      '100.100.100.200',
      '168.63.129.16',
      'FD00:EC2::254',
      'fd00:ec2:0:0:0:0:0:254',
      '0:0:0:0:0:ffff:a9fe:a9fe',
      '64:FF9B::A9FE:A9FE',
    ]);
  });
});

/** The words of `ip` as the WHATWG URL parser reads them (RFC 5952 form, then expanded). */
function wordsByUrl(ip: string): number[] {
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const headWords = head === '' ? [] : head.split(':');
  const tailWords = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros: string[] = new Array(8 - headWords.length - tailWords.length).fill('0');
  return [...headWords, ...zeros, ...tailWords].map((word) => Number.parseInt(word, 16));
}

/** Every spelling of `words`: full, zero-padded, upper case, each run of zeros compressed, a dotted tail. */
function spellings(words: number[]): string[] {
  const hex = words.map((word) => word.toString(16));
  const out = [
    hex.join(':'),
    words.map((w) => w.toString(16).padStart(4, '0')).join(':'),
    hex.join(':').toUpperCase(),
  ];
  for (let start = 0; start < 8; start += 1)
    for (let end = start + 1; end <= 8; end += 1)
      if (words.slice(start, end).every((word) => word === 0))
        out.push(`${hex.slice(0, start).join(':')}::${hex.slice(end).join(':')}`);
  const v4 = [words[6]! >> 8, words[6]! & 0xff, words[7]! >> 8, words[7]! & 0xff].join('.');
  out.push(`${hex.slice(0, 6).join(':')}:${v4}`);
  return out.filter((spelling) => isIP(spelling) === 6);
}

describe('ipv6Words', () => {
  it('reads every spelling of an address as the URL parser does', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const samples: number[][] = [
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 1],
      [0, 0, 0, 0, 0, 0xffff, 0xc000, 0x201],
      [0x2001, 0xdb8, 0, 0, 1, 0, 0, 1],
      [0xfe80, 0, 0, 0, 0, 0, 0, 0],
      [0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff],
    ];
    for (let i = 0; i < 300; i += 1)
      samples.push(Array.from({ length: 8 }, () => (random() < 0.4 ? 0 : Math.floor(random() * 0x10000))));
    let checked = 0;
    for (const words of samples)
      for (const spelling of spellings(words)) {
        expect(ipv6Words(spelling), spelling).toEqual(words);
        expect(ipv6Words(spelling), spelling).toEqual(wordsByUrl(spelling));
        checked += 1;
      }
    expect(checked).toBeGreaterThan(1_500);
  });
});
