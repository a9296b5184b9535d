/** crt.sh's newest row has no known issuer and runs for years; the real certificate has expired. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'issuer-not-found.net',
  about:
    'Unattributable CT row: the newest crt.sh row is "Issuer Not Found" (issuer_ca_id -1, never logged, valid about seven years); the Let’s Encrypt certificate expired 8 days ago.',
  ct: {
    certificates: [
      ...renewalSeries({
        issuer: 'le-r11',
        names: ['issuer-not-found.net', 'www.issuer-not-found.net'],
        count: 3,
        lastIssuedDaysAgo: 98,
        everyDays: 60,
      }),
      {
        issuer: 'unknown',
        names: ['issuer-not-found.net'],
        issuedDaysAgo: 30,
        lifetimeDays: 2_600,
        logged: false,
      },
    ],
  },
};
export default scenario;
