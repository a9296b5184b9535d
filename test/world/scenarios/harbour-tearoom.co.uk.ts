/** Recorded shape: legacy event names (`Registration Date`, `Expiration Date`) and `+0000` offsets. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'harbour-tearoom.co.uk',
  about: 'Non-standard event actions and dates with `+0000` offsets are still read.',
  rdap: {
    registry: {
      registrar: { name: 'Tucows Inc.', ianaId: '69' },
      registeredAt: '2012-07-01T10:20:30+0000',
      expiresAt: '2027-07-01T10:20:30+0000',
      updatedAt: '2026-06-02T08:00:00+0100',
      status: ['client transfer prohibited'],
      nameservers: ['ns1.harbour-tearoom.co.uk'],
      eventActions: {
        registration: 'Registration Date',
        expiration: 'Expiration Date',
        lastChanged: 'last_modified',
      },
    },
  },
};
export default scenario;
