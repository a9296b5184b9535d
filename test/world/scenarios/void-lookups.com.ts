/**
 * SPF naming relays that no longer exist. The apex has 3 void lookups (permerror, RFC 7208
 * §4.6.4); `mail.void-lookups.com` has 2, which is still allowed.
 */
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'void-lookups.com',
  about: 'SPF with 3 void lookups at the apex (spf.too_many_void_lookups) and 2 at mail.void-lookups.com.',
  dns: {
    records: {
      ...workspaceZone(
        'void-lookups.com',
        'v=spf1 a:relay1.void-lookups.com a:relay2.void-lookups.com mx:legacy-mail.void-lookups.com include:_spf.google.com -all',
        'v=DMARC1; p=quarantine; rua=mailto:dmarc@void-lookups.com',
      ),
      'mail.void-lookups.com': {
        A: ['192.0.2.25'],
        MX: [{ priority: 10, host: 'mail.void-lookups.com' }],
        TXT: ['v=spf1 a a:relay1.void-lookups.com a:relay2.void-lookups.com ip4:192.0.2.0/24 -all'],
      },
    },
  },
};
export default scenario;
