/** Name servers that do not answer for the zone: every resolver says SERVFAIL, with or without CD. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'lame-delegation.net',
  about: 'Lame delegation: SERVFAIL even with CD, so the dns check reports an upstream failure (502).',
  dns: { failure: 'servfail', records: { 'lame-delegation.net': { NS: ['ns1.expired-dns-host.com'] } } },
};
export default scenario;
