/** One 398-day certificate with 57 days left and no visible history. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'single-yearly.net';

const scenario: Scenario = {
  domain,
  about: 'A single 398-day certificate, 341 days old (57 days left), no earlier issuance in CT.',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0 },
  ct: { certificates: [{ issuer: 'sectigo', names: [domain], issuedDaysAgo: 341, lifetimeDays: 398 }] },
};
export default scenario;
