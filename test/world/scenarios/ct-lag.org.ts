/** The site already serves a renewal issued two hours ago that CT logs do not show yet. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'ct-lag.org';

const scenario: Scenario = {
  domain,
  about: "CT's newest has 5 days left; the site serves its renewal, 2 hours old, not in CT yet.",
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', unlogged: { issuer: 'le-r11', names: [domain], issuedDaysAgo: 2 / 24 } },
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: [domain],
      count: 3,
      lastIssuedDaysAgo: 85,
      everyDays: 60,
    }),
  },
};
export default scenario;
