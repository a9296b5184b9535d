/** The registry's RDAP server answers 500 for this lookup. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'failing-registry.com',
  about: 'RDAP answers 500: the expiry check fails as http_status (502, not charged).',
  rdap: { registry: 'server_error' },
};
export default scenario;
