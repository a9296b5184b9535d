/**
 * Recorded shape: a registry answer without `last changed`, whose `last update of RDAP database`
 * event (the server's refresh, RFC 9083 §4.5) is today's: no domain change is known.
 */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'registry-refresh.com',
  about: 'No `last changed` event: updated_at is null, the database refresh is only rdap_updated_at.',
  rdap: {
    registry: {
      registrar: { name: 'MarkMonitor Inc.', ianaId: '292' },
      registeredAt: { days: -4000 },
      expiresAt: { days: 300 },
      updatedAt: null,
      status: ['client transfer prohibited'],
      nameservers: ['ns1.registry-refresh.com'],
    },
  },
};
export default scenario;
