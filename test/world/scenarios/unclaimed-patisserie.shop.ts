/** Recorded shape: a registry whose front proxy answers 404 with its own HTML page. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'unclaimed-patisserie.shop',
  about: 'The registry answers 404 as an nginx text/html page: not registered (RFC 7480 §5.3), not a 502.',
  rdap: { registry: 'not_found_html' },
};
export default scenario;
