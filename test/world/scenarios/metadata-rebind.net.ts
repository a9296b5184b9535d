/** A name pointed at the cloud metadata endpoint, the classic SSRF target. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'metadata-rebind.net',
  about:
    'A and AAAA point at cloud metadata: the probe refuses with blocked_address even with PROBE_ALLOW_PRIVATE.',
  dns: { records: { 'metadata-rebind.net': { A: ['169.254.169.254'], AAAA: ['fd00:ec2::254'] } } },
};
export default scenario;
