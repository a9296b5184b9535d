/** The domain's name servers fail CAA queries (an old DNS host that chokes on type 257). */
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const zone = workspaceZone(
  'caa-servfail.com',
  'v=spf1 include:_spf.google.com -all',
  'v=DMARC1; p=reject; rua=mailto:dmarc@caa-servfail.com',
);
const scenario: Scenario = {
  domain: 'caa-servfail.com',
  about:
    'Every resolver answers SERVFAIL for the CAA query only: caa.lookup_failed (CAs refuse to issue); every other section is reported.',
  dns: {
    records: {
      ...zone,
      'caa-servfail.com': { ...zone['caa-servfail.com'], fails: { types: ['CAA'], failure: 'servfail' } },
    },
  },
};
export default scenario;
