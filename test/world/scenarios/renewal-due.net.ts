/** A `.net` registration three weeks from expiry: the expiry check warns. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'renewal-due.net',
  about: 'Registration expires in 20 days (expiry.expires_soon, warning).',
  rdap: {
    registry: {
      registrar: { name: 'NameCheap, Inc.', ianaId: '1068' },
      registeredAt: '2016-02-01T09:00:00Z',
      expiresAt: { days: 20 },
      updatedAt: { days: -345 },
      status: ['client transfer prohibited'],
      nameservers: ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'],
    },
  },
};
export default scenario;
