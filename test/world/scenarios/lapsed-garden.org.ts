/** An `.org` whose expiration date has passed without renewal. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'lapsed-garden.org',
  about: 'Expiration date 12 days in the past (expiry.expired).',
  rdap: {
    registry: {
      registrar: { name: 'Tucows Domains Inc.', ianaId: '69' },
      registeredAt: '2012-06-20T08:30:00Z',
      expiresAt: { days: -12 },
      updatedAt: { days: -12 },
      status: ['active'],
      nameservers: ['ns1.parking-host.net', 'ns2.parking-host.net'],
    },
  },
};
export default scenario;
