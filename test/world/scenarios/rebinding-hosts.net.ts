/** Host names that resolve to internal addresses, and one public stand-in, for the steered-fetch SSRF table. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'rebinding-hosts.net',
  about:
    'rdap.* names resolving to loopback, unspecified, private, metadata and IPv4-mapped addresses; registry.* to a public address.',
  dns: {
    records: {
      'loopback.rebinding-hosts.net': { A: ['127.0.0.1'] },
      'loopback6.rebinding-hosts.net': { AAAA: ['::1'] },
      'mapped.rebinding-hosts.net': { AAAA: ['::ffff:127.0.0.1'] },
      'unspecified.rebinding-hosts.net': { A: ['0.0.0.0'] },
      'private.rebinding-hosts.net': { A: ['10.0.0.1'] },
      'metadata.rebinding-hosts.net': { A: ['169.254.169.254'] },
      'alias.rebinding-hosts.net': { CNAME: 'loopback.rebinding-hosts.net' },
      // A public address: the tests' connector carries it to the loopback fake.
      'registry.rebinding-hosts.net': { A: ['93.184.215.14'] },
    },
  },
};
export default scenario;
