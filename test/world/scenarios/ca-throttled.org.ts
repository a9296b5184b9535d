/** ARI failure mode `rate_limited`. */
import { ariModeScenario } from '../acme.ts';

export default ariModeScenario(
  'ca-throttled.org',
  'rate_limited',
  'The CA answers 429 with Retry-After: unavailable, the cadence decides, still a result.',
);
