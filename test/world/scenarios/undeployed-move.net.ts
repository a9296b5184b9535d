/** A move to another CA that was issued but never deployed, while the served certificate stalls. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'undeployed-move.net';
const names = [domain, `www.${domain}`];

const scenario: Scenario = {
  domain,
  about:
    "The site serves a Let's Encrypt certificate with 5 days left whose CA window ended ~25 days ago; CT's newest is a Google Trust Services certificate issued 3 days ago, the first of that CA, which the site does not serve.",
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0 },
  ct: {
    certificates: [
      ...renewalSeries({ issuer: 'le-r11', names, count: 3, lastIssuedDaysAgo: 85, everyDays: [58, 61] }),
      { issuer: 'google', names, issuedDaysAgo: 3 },
    ],
  },
};
export default scenario;
