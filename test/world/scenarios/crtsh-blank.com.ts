/** crt.sh answers `[]` for a domain with six certificates; Cert Spotter has them. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'crtsh-blank.com',
  about:
    'CT blind spot: crt.sh answers 200 [] although six certificates exist; Cert Spotter lists the live ones, and the live probe passes.',
  ...loopbackSite('crtsh-blank.com', 'ok'),
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['crtsh-blank.com', 'www.crtsh-blank.com'],
      count: 6,
      lastIssuedDaysAgo: 20,
      everyDays: [58, 61, 56, 62, 59],
    }),
    crtsh: { mode: 'empty' },
  },
};
export default scenario;
