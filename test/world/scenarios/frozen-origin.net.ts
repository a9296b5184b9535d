/** A stuck origin: TLS completes, the response never comes. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'frozen-origin.net',
  about:
    'The site accepts the request and never answers: the live probe fails with timeout at its 5 s budget.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'frozen-origin.net': { A: ['127.0.0.1'] } } },
  https: { mode: 'hang' },
};
export default scenario;
