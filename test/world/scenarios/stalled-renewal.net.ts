/** Renewal stopped: fixed 60-day renewals until 85 days ago, certificate 5 days from expiry. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'stalled-renewal.net',
  about: 'Stalled renewal: fixed 60-day renewals, then none for 85 days (5 days left).',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-e8',
      names: ['stalled-renewal.net', 'www.stalled-renewal.net'],
      count: 5,
      lastIssuedDaysAgo: 85,
      everyDays: 60,
    }),
  },
};
export default scenario;
