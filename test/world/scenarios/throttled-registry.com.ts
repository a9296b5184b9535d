/** The registry rate-limits this lookup: 429 with Retry-After. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'throttled-registry.com',
  about: 'RDAP answers 429 with Retry-After: the expiry check fails as rate_limited (502, not charged).',
  rdap: { registry: 'rate_limited' },
};
export default scenario;
