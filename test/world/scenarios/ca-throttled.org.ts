/** ARI failure mode `rate_limited`. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'ca-throttled.org',
  about: 'ARI: The CA answers 429 with Retry-After: unavailable, the cadence decides, still a result.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['ca-throttled.org', 'www.ca-throttled.org'],
      count: 3,
      lastIssuedDaysAgo: 30,
      everyDays: [58, 61],
    }),
  },
  ari: { mode: 'rate_limited' },
};
export default scenario;
