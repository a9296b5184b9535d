/** Renewed but not deployed: CT holds a certificate issued 3 days ago, the site still serves the previous one. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'stale-deploy.net';

const scenario: Scenario = {
  domain,
  about:
    'The ACME client renewed on time, but the server was never reloaded: it serves the certificate before.',
  ...loopbackSite(domain, 'ok'),
  // The site serves certificate 1 (63 days old, valid 27 more days); CT's newest is certificate 0.
  https: { mode: 'ok', serves: 1 },
  ct: {
    certificates: renewalSeries({
      issuer: 'le-e8',
      names: [domain, `www.${domain}`],
      count: 3,
      lastIssuedDaysAgo: 3,
      everyDays: 60,
    }),
  },
};
export default scenario;
