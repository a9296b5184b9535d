/** An old appliance that only implements GET. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'legacy-appliance.com',
  about: 'The site answers HEAD with 405: the probe retries with GET and passes with 200.',
  ...loopbackSite('legacy-appliance.com', 'head-405'),
};
export default scenario;
