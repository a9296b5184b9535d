/** The registry's RDAP server accepts the connection and never answers. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'silent-registry.com',
  about: 'RDAP never answers: the expiry check fails as timeout (502, not charged).',
  rdap: { registry: 'hang' },
};
export default scenario;
