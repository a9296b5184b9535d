/** A stuck origin: TLS completes, the response never comes. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'frozen-origin.net',
  about:
    'The site accepts the request and never answers: the live probe fails with timeout at its 5 s budget.',
  ...loopbackSite('frozen-origin.net', 'hang'),
};
export default scenario;
