/** A CDN's backup of a second CA beside a served certificate whose renewal stalled. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'cdn-backup-stalled.net';
const names = [domain, `www.${domain}`];

const scenario: Scenario = {
  domain,
  about:
    "The served Let's Encrypt certificate has 5 days left and its CA's window ended ~25 days ago; a Google Trust Services backup renewed side by side (newest 3 days old) must not hide the stall.",
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0 },
  ct: {
    certificates: [
      ...renewalSeries({ issuer: 'le-r11', names, count: 3, lastIssuedDaysAgo: 85, everyDays: [58, 61] }),
      ...renewalSeries({ issuer: 'google', names, count: 3, lastIssuedDaysAgo: 3, everyDays: 60 }),
    ],
  },
};
export default scenario;
