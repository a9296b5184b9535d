/** The application behind a healthy certificate is down. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'origin-outage.com',
  about: 'The site answers HTTP 500 over valid TLS: the live probe fails with http_error and status 500.',
  ...loopbackSite('origin-outage.com', 'server-error'),
};
export default scenario;
