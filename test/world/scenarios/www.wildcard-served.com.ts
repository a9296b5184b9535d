/** A subdomain served a wildcard certificate (`*.wildcard-served.com`) that CT holds. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'www.wildcard-served.com';

const scenario: Scenario = {
  domain,
  about: 'The served leaf covers the name by its wildcard only; healthy, renewed every 58–62 days.',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0 },
  ct: {
    certificates: renewalSeries({
      issuer: 'google',
      names: ['*.wildcard-served.com', 'wildcard-served.com'],
      count: 3,
      lastIssuedDaysAgo: 20,
      everyDays: [58, 62],
    }),
  },
};
export default scenario;
