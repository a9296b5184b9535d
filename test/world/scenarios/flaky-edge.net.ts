/** An edge that drops every request, HEAD and GET alike. */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'flaky-edge.net',
  about: 'The site resets the connection after the request (TCP RST): the live probe fails with reset.',
  ...loopbackSite('flaky-edge.net', 'reset'),
};
export default scenario;
