/** ARI failure mode `unavailable`. */
import { ariModeScenario } from '../acme.ts';

export default ariModeScenario(
  'ca-outage.net',
  'unavailable',
  'The CA answers 503 with Retry-After: unavailable, the cadence decides, still a result.',
);
