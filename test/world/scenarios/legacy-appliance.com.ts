/** An old appliance that only implements GET. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'legacy-appliance.com',
  about: 'The site answers HEAD with 405: the probe retries with GET and passes with 200.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'legacy-appliance.com': { A: ['127.0.0.1'] } } },
  https: { mode: 'head-405' },
};
export default scenario;
