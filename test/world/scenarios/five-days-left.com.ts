/** The site serves a certificate with 5 days left while its renewal (4 days old) sits undeployed in CT. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'five-days-left.com';

const scenario: Scenario = {
  domain,
  about: 'Served: 85 days old, 5 days left; CT: its renewal, 4 days old (86 days left), not deployed.',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 1 },
  ct: {
    certificates: renewalSeries({
      issuer: 'le-e8',
      names: [domain],
      count: 3,
      lastIssuedDaysAgo: 4,
      everyDays: [81, 60],
    }),
  },
};
export default scenario;
