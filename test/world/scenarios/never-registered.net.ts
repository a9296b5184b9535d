/** A name nobody registered: the registry answers an RFC 9083 JSON 404. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'never-registered.net',
  about: 'Not registered: RDAP 404 with an RFC 9083 error body (expiry.not_registered).',
  rdap: { registry: 'not_found_json' },
};
export default scenario;
