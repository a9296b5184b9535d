/** A move from Let's Encrypt to Google Trust Services, deployed. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'moved-to-gts.org';
const names = [domain, `www.${domain}`];

const scenario: Scenario = {
  domain,
  about:
    "Moved to Google Trust Services 10 days ago and serves that certificate; the abandoned Let's Encrypt series (20 days left) is neither judged nor alarmed.",
  ...loopbackSite(domain, 'ok'),
  // Certificate 3, the Google Trust Services one, is served.
  https: { mode: 'ok', serves: 3 },
  ct: {
    certificates: [
      ...renewalSeries({ issuer: 'le-r11', names, count: 3, lastIssuedDaysAgo: 70, everyDays: [58, 61] }),
      { issuer: 'google', names, issuedDaysAgo: 10 },
    ],
  },
};
export default scenario;
