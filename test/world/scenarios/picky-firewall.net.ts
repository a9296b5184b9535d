/** A filter in front of the site that drops HEAD. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'picky-firewall.net',
  about: 'A firewall resets HEAD requests: the probe retries with GET and passes with 200.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'picky-firewall.net': { A: ['127.0.0.1'] } } },
  https: { mode: 'head-reset' },
};
export default scenario;
