/** Recorded shape: a registrar entity whose jCard names it in `org` and has no `fn`. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'gallery-orgcard.com',
  about: 'The registrar vCard carries only `org`: the registrar name comes from it.',
  rdap: {
    registry: {
      registrar: { name: 'Gandi SAS', ianaId: '81', nameIn: 'org' },
      registeredAt: '2016-05-04T12:00:00Z',
      expiresAt: { days: 150 },
      updatedAt: { days: -215 },
      status: ['client transfer prohibited'],
      nameservers: ['ns-1.gandi.net', 'ns-2.gandi.net'],
    },
  },
};
export default scenario;
