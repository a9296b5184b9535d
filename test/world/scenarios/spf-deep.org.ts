/** A 4-level SPF include tree within the limits: the walk must fetch it level by level. */
import { renewalSeries } from '../ct-history.ts';
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const zone = workspaceZone(
  'spf-deep.org',
  'v=spf1 include:_l1a.spf-deep.org include:_l1b.spf-deep.org -all',
  'v=DMARC1; p=reject; rua=mailto:dmarc@spf-deep.org',
);
const scenario: Scenario = {
  domain: 'spf-deep.org',
  about:
    'SPF include tree four levels deep and two wide (9 lookups, valid): resolved one level per round trip.',
  // Registration, certificates and a site too, so the site-health benchmark can run on it.
  https: { mode: 'ok' },
  rdap: {
    registry: {
      registrar: { name: 'Gandi SAS', ianaId: '81' },
      registeredAt: '2015-03-02T09:12:44Z',
      expiresAt: { days: 210 },
      updatedAt: { days: -30 },
      status: ['client transfer prohibited'],
      nameservers: ['ns1.gandi.net', 'ns2.gandi.net'],
      delegationSigned: false,
    },
  },
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['spf-deep.org', 'www.spf-deep.org'],
      count: 4,
      lastIssuedDaysAgo: 25,
      everyDays: [60, 59, 61],
    }),
  },
  dns: {
    records: {
      ...zone,
      'spf-deep.org': { ...zone['spf-deep.org'], A: ['127.0.0.1'] },
      '_l1a.spf-deep.org': { TXT: ['v=spf1 include:_l2a.spf-deep.org include:_l2b.spf-deep.org ~all'] },
      '_l1b.spf-deep.org': { TXT: ['v=spf1 ip4:192.0.2.0/26 include:_l2c.spf-deep.org ~all'] },
      '_l2a.spf-deep.org': { TXT: ['v=spf1 include:_l3a.spf-deep.org ~all'] },
      '_l2b.spf-deep.org': { TXT: ['v=spf1 ip4:192.0.2.64/26 ~all'] },
      '_l2c.spf-deep.org': { TXT: ['v=spf1 include:_l3b.spf-deep.org ~all'] },
      '_l3a.spf-deep.org': { TXT: ['v=spf1 include:_l4a.spf-deep.org ~all'] },
      '_l3b.spf-deep.org': { TXT: ['v=spf1 ip6:2001:db8:d::/48 include:_l4b.spf-deep.org ~all'] },
      '_l4a.spf-deep.org': { TXT: ['v=spf1 ip4:198.51.100.0/24 ~all'] },
      '_l4b.spf-deep.org': { TXT: ['v=spf1 ip4:203.0.113.0/24 ~all'] },
    },
  },
};
export default scenario;
