/** A 398-day certificate with 57 days left, renewed yearly (crt.sh shows the expired ones, Cert Spotter not). */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'yearly-renewals.com';

const scenario: Scenario = {
  domain,
  about: '398-day certificates renewed every 365 days; the current one has 57 days left.',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0 },
  ct: {
    certificates: renewalSeries({
      issuer: 'sectigo',
      names: [domain, `www.${domain}`],
      count: 3,
      lastIssuedDaysAgo: 341,
      everyDays: 365,
      lifetimeDays: 398,
    }),
  },
};
export default scenario;
