/** A signed delegation whose zone signatures fail validation: resolvers answer SERVFAIL unless CD. */
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const zone = workspaceZone(
  'dnssec-broken.net',
  'v=spf1 include:_spf.google.com -all',
  'v=DMARC1; p=reject; rua=mailto:dmarc@dnssec-broken.net',
);

const scenario: Scenario = {
  domain: 'dnssec-broken.net',
  about: 'DNSSEC bogus (expired RRSIGs after a botched key rollover): dnssec.bogus.',
  dns: {
    dnssec: 'bogus',
    records: {
      ...zone,
      'dnssec-broken.net': {
        ...zone['dnssec-broken.net'],
        DS: [
          {
            keyTag: 40318,
            algorithm: 8,
            digestType: 2,
            digest: '5e3b6a1f2c0d9e8b7a6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09',
          },
        ],
        DNSKEY: [
          { flags: 257, algorithm: 8, key: 'AwEAAcW1tCRbWcWtL4EHHUQK4NBD2LxsrZAupsIl9ECMwxRlBvLb2Tra' },
        ],
      },
    },
  },
};
export default scenario;
