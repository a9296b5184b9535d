/** A permanent redirect at the apex. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'moved-brand.org',
  about: 'The site answers 301 to www: the probe passes with status 301 and does not follow the redirect.',
  // Loopback, so the world's HTTPS site answers the live probe.
  dns: { records: { 'moved-brand.org': { A: ['127.0.0.1'] } } },
  https: { mode: 'redirect' },
};
export default scenario;
