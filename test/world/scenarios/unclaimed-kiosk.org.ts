/** Recorded shape: a registry that answers 404 with no Content-Type header. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'unclaimed-kiosk.org',
  about: 'The registry answers 404 without a content type: not registered (RFC 7480 §5.3), not a 502.',
  rdap: { registry: 'not_found_untyped' },
};
export default scenario;
