/** A CDN or shared host not yet configured for this name. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'parked-alias.com',
  about:
    'The site serves a valid certificate for another name: the live probe fails with tls_hostname_mismatch.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'parked-alias.com': { A: ['127.0.0.1'] } } },
  https: { mode: 'wrong-host' },
};
export default scenario;
