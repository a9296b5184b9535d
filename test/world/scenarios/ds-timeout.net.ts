/** The DS query for the domain never gets an answer; nothing else needs it. */
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const zone = workspaceZone(
  'ds-timeout.net',
  'v=spf1 include:_spf.google.com -all',
  'v=DMARC1; p=quarantine; rua=mailto:dmarc@ds-timeout.net',
);
const scenario: Scenario = {
  domain: 'ds-timeout.net',
  about:
    'Both resolvers leave the DS query unanswered: the dnssec section carries a timeout error, SPF/DMARC/MX are still reported.',
  dns: {
    records: {
      ...zone,
      'ds-timeout.net': { ...zone['ds-timeout.net'], fails: { types: ['DS'], failure: 'hang' } },
    },
  },
};
export default scenario;
