/** The site serves a leaf that expired five days ago while its renewal sits undeployed in CT. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'served-expired.net';

const scenario: Scenario = {
  domain,
  about: 'Served leaf expired 5 days ago; CT holds its renewal (3 days old, 87 days left), not deployed.',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 1 },
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: [domain],
      count: 3,
      lastIssuedDaysAgo: 3,
      everyDays: [92, 60],
    }),
  },
};
export default scenario;
