/** Inside the CA's renewal window today, not renewed yet: normal for hours to days. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'renewing-florist.com',
  about:
    "ARI: Let's Encrypt's window (days 59.1–60.9 of 90) is open, no successor yet: watch, as information.",
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['renewing-florist.com', 'www.renewing-florist.com'],
      count: 3,
      lastIssuedDaysAgo: 60,
      everyDays: [59.6, 60.4],
    }),
  },
};
export default scenario;
