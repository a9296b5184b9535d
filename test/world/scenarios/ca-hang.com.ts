/** ARI failure mode `hang`. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'ca-hang.com',
  about: 'ARI: The CA never answers: unavailable within the 2 s ARI bound, the cadence decides.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['ca-hang.com', 'www.ca-hang.com'],
      count: 3,
      lastIssuedDaysAgo: 30,
      everyDays: [58, 61],
    }),
  },
  ari: { mode: 'hang' },
};
export default scenario;
