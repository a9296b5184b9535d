/** A permanent redirect at the apex. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'moved-brand.org',
  about: 'The site answers 301 to www: the probe passes with status 301 and does not follow the redirect.',
  ...loopbackSite('moved-brand.org', 'redirect'),
};
export default scenario;
