/** crt.sh answers `[]` and Cert Spotter, which must confirm it, is rate-limited. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'crtsh-blank-throttled.org',
  about:
    'Unconfirmed empty CT answer: crt.sh answers [] for a domain with certificates and Cert Spotter answers 429, so the cert check is a 502, not "no certificate".',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-e8',
      names: ['crtsh-blank-throttled.org'],
      count: 3,
      lastIssuedDaysAgo: 12,
      everyDays: 60,
    }),
    crtsh: { mode: 'empty' },
    certspotter: { mode: 'rate_limited' },
  },
};
export default scenario;
