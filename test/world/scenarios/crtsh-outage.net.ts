/** crt.sh answers its 503 "ERROR!" page; Cert Spotter must answer instead. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'crtsh-outage.net',
  about:
    'CT fallback: crt.sh fails with 503 (database timeout page), Cert Spotter has the unexpired issuances.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['crtsh-outage.net'],
      count: 3,
      lastIssuedDaysAgo: 30,
      everyDays: [58, 61],
    }),
    crtsh: { mode: 'db_error' },
  },
};
export default scenario;
