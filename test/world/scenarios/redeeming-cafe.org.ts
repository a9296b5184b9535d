/** An `.org` in the deletion cycle (RFC 3915 redemption grace period). */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'redeeming-cafe.org',
  about: 'Redemption period and pending delete: expiry.pending_delete.',
  rdap: {
    registry: {
      registrar: { name: 'Tucows Domains Inc.', ianaId: '69' },
      registeredAt: '2015-01-15T10:00:00Z',
      expiresAt: { days: -40 },
      updatedAt: { days: -5 },
      status: ['redemption period', 'pending delete', 'server hold'],
      nameservers: [],
    },
  },
};
export default scenario;
