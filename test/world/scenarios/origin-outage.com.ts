/** The application behind a healthy certificate is down. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'origin-outage.com',
  about: 'The site answers HTTP 500 over valid TLS: the live probe fails with http_error and status 500.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'origin-outage.com': { A: ['127.0.0.1'] } } },
  https: { mode: 'server-error' },
};
export default scenario;
