/** A domain with no certificate in CT at all. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'no-cert-yet.com',
  about: 'No certificate: CT has no issuance for the name (crt.sh answers []).',
  ct: { certificates: [] },
};
export default scenario;
