/** A domain that never moved DMARC past monitoring, with softfail SPF and no DNSSEC or CAA. */
import { workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'dmarc-monitor.net',
  about: 'DMARC p=none (dmarc.policy_none), SPF ~all, unsigned zone, no CAA, no MTA-STS.',
  dns: {
    ttlSeconds: 3600,
    records: workspaceZone(
      'dmarc-monitor.net',
      'v=spf1 include:_spf.google.com ~all',
      'v=DMARC1; p=none; rua=mailto:dmarc_agg@vali.email,mailto:reports@dmarc-monitor.net; fo=1',
    ),
  },
};
export default scenario;
