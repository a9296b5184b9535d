/** Both DoH resolvers answer HTTP 500 for this domain's names. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'resolver-outage.com',
  about: 'Every DoH query under this name gets HTTP 500: the dns check fails with upstream doh http_status.',
  dns: { failure: 'http_500', records: { 'resolver-outage.com': { A: ['192.0.2.10'] } } },
};
export default scenario;
