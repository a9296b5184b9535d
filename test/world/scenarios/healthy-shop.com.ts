/** A healthy `.com`: Verisign-shaped RDAP with registrar, locks, DNSSEC and a year to run. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'healthy-shop.com',
  about: 'Everything in order: renewed well ahead, locked against transfer, DNSSEC delegated.',
  rdap: {
    registry: {
      registrar: { name: 'MarkMonitor Inc.', ianaId: '292' },
      registeredAt: '2009-05-14T17:22:08Z',
      expiresAt: { days: 400 },
      updatedAt: { days: -45 },
      status: [
        'client delete prohibited',
        'client transfer prohibited',
        'client update prohibited',
        'server delete prohibited',
        'server transfer prohibited',
        'server update prohibited',
      ],
      nameservers: ['ns1.healthy-shop.com', 'ns2.healthy-shop.com'],
      delegationSigned: true,
    },
  },
  // Let's Encrypt renewals on an irregular, ARI-like cadence (56–62 days), newest 20 days ago.
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['healthy-shop.com', 'www.healthy-shop.com'],
      count: 6,
      lastIssuedDaysAgo: 20,
      everyDays: [58, 61, 56, 62, 59],
    }),
  },
};
export default scenario;
