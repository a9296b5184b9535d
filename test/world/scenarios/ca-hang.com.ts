/** ARI failure mode `hang`. */
import { ariModeScenario } from '../acme.ts';

export default ariModeScenario(
  'ca-hang.com',
  'hang',
  'The CA never answers: unavailable within the 2 s ARI bound, the cadence decides.',
);
