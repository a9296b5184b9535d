/** Renewal overdue but not yet dangerous: past the usual renewal point with 24 days left. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'slow-renewal.org',
  about: 'Renewal watch: renews about every 55 days, newest issued 66 days ago (24 days left).',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['slow-renewal.org'],
      count: 4,
      lastIssuedDaysAgo: 66,
      everyDays: [54, 57, 55],
    }),
  },
};
export default scenario;
