/** A `.com` registration five days from expiry: the expiry check is critical. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'lapsing-bakery.com',
  about: 'Registration expires in 5 days (expiry.expires_soon, critical).',
  rdap: {
    registry: {
      registrar: { name: 'GoDaddy.com, LLC', ianaId: '146' },
      registeredAt: '2021-03-10T12:00:00Z',
      expiresAt: { days: 5 },
      updatedAt: { days: -360 },
      status: [
        'client delete prohibited',
        'client renew prohibited',
        'client transfer prohibited',
        'client update prohibited',
      ],
      nameservers: ['ns51.domaincontrol.com', 'ns52.domaincontrol.com'],
    },
  },
};
export default scenario;
