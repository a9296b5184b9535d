/** Name servers that do not answer for the zone: every resolver says SERVFAIL, with or without CD. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'lame-delegation.net',
  about:
    'Lame delegation: SERVFAIL even with CD while the resolvers answer other names, so every section carries a servfail error (dns.lookup_failed, caa.lookup_failed).',
  dns: { failure: 'servfail', records: { 'lame-delegation.net': { NS: ['ns1.expired-dns-host.com'] } } },
};
export default scenario;
