/** A CDN's backup of a second CA beside a healthy served certificate. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'cdn-backup-healthy.com';
const names = [domain, `www.${domain}`];

const scenario: Scenario = {
  domain,
  about:
    "A CDN keeps a Google Trust Services backup (renewed side by side, newest 3 days old) beside the Let's Encrypt certificate it serves (20 days old): the served one is judged, the backup reported beside it.",
  ...loopbackSite(domain, 'ok'),
  // Certificate 0 is the newest Let's Encrypt one; 3 to 5 are the backups.
  https: { mode: 'ok', serves: 0 },
  ct: {
    certificates: [
      ...renewalSeries({ issuer: 'le-r11', names, count: 3, lastIssuedDaysAgo: 20, everyDays: [58, 61] }),
      ...renewalSeries({ issuer: 'google', names, count: 3, lastIssuedDaysAgo: 3, everyDays: 60 }),
    ],
  },
};
export default scenario;
