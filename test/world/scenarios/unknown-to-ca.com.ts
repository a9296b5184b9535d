/** ARI failure mode `not_found`. */
import { ariModeScenario } from '../acme.ts';

export default ariModeScenario(
  'unknown-to-ca.com',
  'not_found',
  'The CA answers 404 for the certificate: not_found, the cadence decides.',
);
