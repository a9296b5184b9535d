/** ARI failure mode `not_found`. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'unknown-to-ca.com',
  about: 'ARI: The CA answers 404 for the certificate: not_found, the cadence decides.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['unknown-to-ca.com', 'www.unknown-to-ca.com'],
      count: 3,
      lastIssuedDaysAgo: 30,
      everyDays: [58, 61],
    }),
  },
  ari: { mode: 'not_found' },
};
export default scenario;
