/** Everything a little wrong at once: the site-health "every warning" case across all four fakes. */
import { renewalSeries } from '../ct-history.ts';
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const DOMAIN = 'neglected-bistro.com';
const zone = workspaceZone(DOMAIN, 'v=spf1 include:_spf.google.com ?all', 'v=DMARC1; p=none');

const scenario: Scenario = {
  domain: DOMAIN,
  about:
    'Fixed 60-day renewals now 70 days overdue, origin answering 500, SPF ?all, DMARC p=none, unsigned, CAA naming another CA, registration 20 days from expiry.',
  // Let's Encrypt every 60 days like clockwork, then nothing for 70 days (20 days left): watch.
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: [DOMAIN, `www.${DOMAIN}`],
      count: 5,
      lastIssuedDaysAgo: 70,
      everyDays: 60,
    }),
  },
  dns: {
    records: {
      ...zone,
      // Loopback, so the world's HTTPS site answers the live probe (with a 500).
      [DOMAIN]: { ...zone[DOMAIN], A: ['127.0.0.1'], CAA: [{ tag: 'issue', value: 'digicert.com' }] },
    },
  },
  https: { mode: 'server-error' },
  rdap: {
    registry: {
      registrar: { name: 'Tucows Domains Inc.', ianaId: '69' },
      registeredAt: '2019-04-12T08:30:00Z',
      expiresAt: { days: 20 },
      updatedAt: { days: -340 },
      status: ['client transfer prohibited'],
      nameservers: ['ns-cloud-c1.googledomains.com', 'ns-cloud-c2.googledomains.com'],
    },
  },
};
export default scenario;
