/** Both CT aggregators fail: crt.sh with an nginx 502, Cert Spotter rate-limited. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'ct-outage.org',
  about: 'CT outage: crt.sh 502 Bad Gateway and Cert Spotter 429, so the cert check is a 502 naming both.',
  ct: {
    certificates: [{ issuer: 'le-r11', names: ['ct-outage.org'], issuedDaysAgo: 10 }],
    crtsh: { mode: 'bad_gateway' },
    certspotter: { mode: 'rate_limited' },
  },
};
export default scenario;
