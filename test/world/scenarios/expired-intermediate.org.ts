/** A valid leaf served under an intermediate that expired yesterday: every browser refuses the chain. */
import { renewalSeries } from '../ct-history.ts';
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'expired-intermediate.org';

const scenario: Scenario = {
  domain,
  about: 'The served leaf (10 days old) is fine; the intermediate the server sends expired a day ago.',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0, intermediateDaysLeft: -1 },
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: [domain],
      count: 2,
      lastIssuedDaysAgo: 10,
      everyDays: 60,
    }),
  },
};
export default scenario;
