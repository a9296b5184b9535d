/** A thin registry answer whose registrar RDAP server fails: the registry data still stands. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'broken-referral.net',
  about: 'Registry answer without registrar; the registrar server answers 500.',
  rdap: {
    registry: {
      registrar: null,
      registeredAt: '2020-02-20T20:20:20Z',
      expiresAt: { days: 90 },
      updatedAt: { days: -275 },
      status: ['active'],
      nameservers: ['ns1.broken-referral.net', 'ns2.broken-referral.net'],
    },
    registrar: 'server_error',
  },
};
export default scenario;
