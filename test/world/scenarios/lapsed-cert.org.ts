/** A certificate that expired five days ago after 60-day renewals stopped. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'lapsed-cert.org',
  about: 'Expired certificate: newest issued 95 days ago with a 90-day lifetime.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['lapsed-cert.org'],
      count: 3,
      lastIssuedDaysAgo: 95,
      everyDays: [59, 62],
    }),
  },
};
export default scenario;
