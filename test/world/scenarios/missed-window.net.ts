/** The CA's renewal window ended five days ago and no successor exists: stalled with high confidence. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'missed-window.net',
  about:
    "ARI: Let's Encrypt's window ended ~5 days ago, no successor in CT (24 days left, which the cadence alone calls watch): stalled on basis ari.",
  ct: {
    certificates: renewalSeries({
      issuer: 'le-e8',
      names: ['missed-window.net', 'www.missed-window.net'],
      count: 3,
      lastIssuedDaysAgo: 66,
      everyDays: [59.4, 60.5],
    }),
  },
};
export default scenario;
