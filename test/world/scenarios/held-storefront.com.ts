/** A `.com` put on hold by both registrar and registry: not published in DNS. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'held-storefront.com',
  about: 'Registrar and registry hold (clientHold + serverHold): expiry.hold.',
  rdap: {
    registry: {
      registrar: { name: 'Gandi SAS', ianaId: '81' },
      registeredAt: '2018-11-02T14:00:00Z',
      expiresAt: { days: 150 },
      updatedAt: { days: -3 },
      status: ['client hold', 'server hold', 'client transfer prohibited'],
      nameservers: ['ns-1.gandi.net', 'ns-2.gandi.net'],
    },
  },
};
export default scenario;
