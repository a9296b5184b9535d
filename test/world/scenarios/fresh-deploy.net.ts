/** Renewed and deployed: the site serves the newest certificate CT holds (a Google Trust Services one with a high-bit serial). */
import { loopbackSite } from '../https-site.ts';
import type { Scenario } from '../scenario.ts';

const domain = 'fresh-deploy.net';

const scenario: Scenario = {
  domain,
  about:
    'The newest certificate in CT is the one served; its serial has the high bit set (crt.sh prints a 00 before it).',
  ...loopbackSite(domain, 'ok'),
  https: { mode: 'ok', serves: 0 },
  ct: {
    certificates: [
      { issuer: 'google', names: [domain], issuedDaysAgo: 4, serial: '00d2c1b0a9f8e7d6c5b4a39281706f5e4d' },
      { issuer: 'google', names: [domain], issuedDaysAgo: 64 },
    ],
  },
};
export default scenario;
