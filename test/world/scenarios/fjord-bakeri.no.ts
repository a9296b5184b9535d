/** A `.no` domain: the registry publishes no expiration event; dates carry offsets and fractions. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'fjord-bakeri.no',
  about: 'No expiration event (expiry.no_expiry_date); dates with fractional seconds and +02:00 offsets.',
  rdap: {
    registry: {
      registrar: { name: 'Domeneshop AS', ianaId: '1001' },
      registeredAt: '2014-04-02T10:11:12.345678+02:00',
      expiresAt: null,
      updatedAt: '2026-02-17T08:00:00.5+01:00',
      status: ['active'],
      nameservers: ['NS1.HYP.NET.', 'ns2.hyp.net'],
    },
  },
};
export default scenario;
