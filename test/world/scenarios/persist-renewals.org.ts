/** Renewal readiness in DNS: DNS-01 delegated by CNAME, and DNS-PERSIST-01 authorizations (one expiring). */
import type { Scenario } from '../scenario.ts';

const DAY_S = 86_400;
/** `persistUntil` 12 days from when the world starts: inside the 30-day warning. */
export const LE_PERSIST_UNTIL = Math.floor(Date.now() / 1000) + 12 * DAY_S;
export const ACME_DNS_TARGET = '5f3c8e21-7d4a-4b9e-9c1f-2a6b8d0e4f71.auth.acme-dns.io';

const scenario: Scenario = {
  domain: 'persist-renewals.org',
  about:
    "DNS-01 delegated to acme-dns by a CNAME; DNS-PERSIST-01 for Let's Encrypt expiring in 12 days and a standing wildcard one for Google Trust Services.",
  dns: {
    records: {
      'persist-renewals.org': {
        A: ['192.0.2.90'],
        NS: ['ns1.persist-renewals.org', 'ns2.persist-renewals.org'],
        MX: [{ priority: 10, host: 'mail.persist-renewals.org' }],
        TXT: ['v=spf1 ip4:192.0.2.90 -all'],
        CAA: [
          { tag: 'issue', value: 'letsencrypt.org' },
          { tag: 'issue', value: 'pki.goog' },
        ],
      },
      '_dmarc.persist-renewals.org': { TXT: ['v=DMARC1; p=reject; rua=mailto:dmarc@persist-renewals.org'] },
      '_acme-challenge.persist-renewals.org': { CNAME: ACME_DNS_TARGET },
      [ACME_DNS_TARGET]: { TXT: ['gYx1nZ3bRk9_Jw2LqV8cT4sHf6mP0aE5uDiO7yKzXhQ'] },
      // One record split into several character-strings, as the draft's examples write it.
      '_validation-persist.persist-renewals.org': {
        TXT: [
          [
            'letsencrypt.org;',
            ' accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/2187654321;',
            ` persistUntil=${LE_PERSIST_UNTIL}`,
          ],
          'pki.goog; accounturi=https://dv.acme-v02.api.pki.goog/account/Ab3dEf9; Policy=Wildcard',
        ],
      },
    },
  },
};
export default scenario;
