/**
 * The site serves a private-CA leaf with 3 days left, under an intermediate ending in 2 days, while
 * CT holds a public certificate the site does not serve.
 */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'private-ca.net';

const scenario: Scenario = {
  domain,
  about: 'Private-CA leaf served (3 days left, intermediate ends in 2); a public Sectigo certificate in CT.',
  ...loopbackSite(domain, 'ok'),
  https: {
    mode: 'ok',
    privateCa: true,
    intermediateDaysLeft: 2,
    unlogged: { issuer: 'sectigo', names: [domain], issuedDaysAgo: 27, lifetimeDays: 30 },
  },
  ct: { certificates: [{ issuer: 'sectigo', names: [domain], issuedDaysAgo: 20, lifetimeDays: 180 }] },
};
export default scenario;
