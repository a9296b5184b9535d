/** A filter in front of the site that drops HEAD. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'picky-firewall.net',
  about: 'A firewall resets HEAD requests: the probe retries with GET and passes with 200.',
  ...loopbackSite('picky-firewall.net', 'head-reset'),
};
export default scenario;
