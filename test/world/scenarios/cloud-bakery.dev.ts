/** A Google Trust Services certificate: ARI from Google, whose answers carry an empty explanationURL. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'cloud-bakery.dev',
  about:
    'ARI: Google Trust Services\' window lies ahead (explanationURL "" is no explanation): ok on basis ari.',
  ct: {
    certificates: renewalSeries({
      issuer: 'google',
      names: ['cloud-bakery.dev', '*.cloud-bakery.dev'],
      count: 3,
      lastIssuedDaysAgo: 30,
      everyDays: 60,
    }),
  },
};
export default scenario;
