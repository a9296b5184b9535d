/** An SPF include loop: _spf includes _spf2, which includes _spf again. */
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'spf-loop.net',
  about: 'SPF includes that loop back on themselves: spf.include_loop, resolution stops.',
  dns: {
    records: {
      ...workspaceZone(
        'spf-loop.net',
        'v=spf1 include:_spf.spf-loop.net -all',
        'v=DMARC1; p=none; rua=mailto:postmaster@spf-loop.net',
      ),
      '_spf.spf-loop.net': { TXT: ['v=spf1 ip4:198.51.100.0/24 include:_spf2.spf-loop.net ~all'] },
      '_spf2.spf-loop.net': { TXT: ['v=spf1 ip4:203.0.113.0/24 include:_spf.spf-loop.net -all'] },
    },
  },
};
export default scenario;
