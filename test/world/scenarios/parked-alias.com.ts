/** A CDN or shared host not yet configured for this name. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'parked-alias.com',
  about:
    'The site serves a valid certificate for another name: the live probe fails with tls_hostname_mismatch.',
  ...loopbackSite('parked-alias.com', 'wrong-host'),
};
export default scenario;
