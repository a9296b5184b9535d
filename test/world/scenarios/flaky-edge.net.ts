/** An edge that drops every request, HEAD and GET alike. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'flaky-edge.net',
  about: 'The site resets the connection after the request (TCP RST): the live probe fails with reset.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'flaky-edge.net': { A: ['127.0.0.1'] } } },
  https: { mode: 'reset' },
};
export default scenario;
