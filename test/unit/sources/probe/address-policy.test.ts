/** The SSRF address policy: every special-purpose range, in every spelling the resolver could give. */
import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../../../src/sources/public-fetch/address-policy.ts';
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
