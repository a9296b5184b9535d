/** Subdomains covered only by a wildcard certificate (`*.wildcard-cover.com`), issued without a CN. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'wildcard-cover.com',
  about: 'Wildcard coverage: Google Trust Services wildcard + apex, no subject CN, renewed every 50–55 days.',
  ct: {
    certificates: renewalSeries({
      issuer: 'google',
      names: ['*.wildcard-cover.com', 'wildcard-cover.com'],
      count: 4,
      lastIssuedDaysAgo: 10,
      everyDays: [52, 55, 50],
    }).map((cert) => ({ ...cert, commonName: null })),
  },
};
export default scenario;
