/** A thin registry answer: the registrar is only named by the registrar's own RDAP server. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'referred-registrar.com',
  about: 'Registry answer without registrar; the rel=related referral supplies it.',
  rdap: {
    registry: {
      registrar: null,
      registeredAt: '2019-08-08T08:08:08Z',
      expiresAt: { days: 200 },
      updatedAt: { days: -165 },
      status: ['client transfer prohibited'],
      nameservers: ['ns1.referred-registrar.com'],
    },
    registrar: {
      registrar: { name: 'Porkbun LLC', ianaId: '1861' },
      registeredAt: '2019-08-08T08:08:08Z',
      expiresAt: { days: 200 },
      updatedAt: { days: -165 },
      status: ['client transfer prohibited'],
      nameservers: ['ns1.referred-registrar.com'],
    },
  },
};
export default scenario;
