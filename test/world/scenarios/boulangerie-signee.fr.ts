/** Recorded shape: AFNIC (`.fr`) spells the DNSSEC member `secureDns` and lists the DS records. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'boulangerie-signee.fr',
  about: 'AFNIC-style `secureDns` with dsData: dnssec_delegated is true.',
  rdap: {
    registry: {
      registrar: { name: 'OVH', ianaId: '433' },
      registeredAt: '2011-09-12T09:14:52Z',
      expiresAt: { days: 290 },
      updatedAt: { days: -75 },
      status: ['active'],
      nameservers: ['dns11.ovh.net', 'ns11.ovh.net'],
      delegationSigned: true,
      secureDnsMember: 'secureDns',
      dsData: [
        {
          keyTag: 41323,
          algorithm: 13,
          digestType: 2,
          digest: '5C1B3E1A4F2D9C8B7A6E5D4C3B2A1908F7E6D5C4B3A29180F7E6D5C4B3A29180',
        },
      ],
    },
  },
};
export default scenario;
