/** The CA asks for early renewal (a mass-revocation drill like Let's Encrypt's of 2026-03-19). */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'drill-bookshop.org',
  about:
    'ARI: a 20-day-old certificate whose window opens in 6 hours for 30 minutes, with an explanation URL: the CA asked for early renewal.',
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['drill-bookshop.org'],
      count: 2,
      lastIssuedDaysAgo: 20,
      everyDays: 60,
    }),
  },
  ari: {
    window: { startDays: 0.25, endDays: 0.25 + 1 / 48 },
    explanationUrl: 'https://community.letsencrypt.org/t/2026-03-19-revocation-drill/241234',
  },
};
export default scenario;
