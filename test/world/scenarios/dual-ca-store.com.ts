/** A site with a second CA's yearly certificate and a Let's Encrypt certificate for other names beside its main series. */
import { renewalSeries } from '../ct-history.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'dual-ca-store.com',
  about:
    'Overlapping issuances: a Sectigo yearly certificate and an API-host certificate beside a regular Let’s Encrypt series.',
  ct: {
    certificates: [
      ...renewalSeries({
        issuer: 'le-r11',
        names: ['dual-ca-store.com', 'www.dual-ca-store.com'],
        count: 5,
        lastIssuedDaysAgo: 15,
        everyDays: [57, 60, 58, 61],
      }),
      {
        issuer: 'sectigo',
        names: ['dual-ca-store.com', 'www.dual-ca-store.com'],
        issuedDaysAgo: 100,
        lifetimeDays: 199,
      },
      { issuer: 'le-r11', names: ['api.dual-ca-store.com', 'dual-ca-store.com'], issuedDaysAgo: 40 },
      { issuer: 'le-r11', names: ['api.dual-ca-store.com', 'dual-ca-store.com'], issuedDaysAgo: 98 },
    ],
  },
};
export default scenario;
