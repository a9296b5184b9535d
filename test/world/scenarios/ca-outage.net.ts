/** ARI failure mode `unavailable`. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'ca-outage.net',
  about: 'ARI: The CA answers 503 with Retry-After: unavailable, the cadence decides, still a result.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['ca-outage.net', 'www.ca-outage.net'],
      count: 3,
      lastIssuedDaysAgo: 30,
      everyDays: [58, 61],
    }),
  },
  ari: { mode: 'unavailable' },
};
export default scenario;
