/** The SSRF attack of issue "Money moves only for a delivered result": a referral to cloud metadata. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'internal-referral.com',
  about:
    'Thin registry answer whose rel=related referral points, with credentials, at cloud metadata: never fetched, never echoed.',
  rdap: {
    registry: {
      registrar: null,
      registeredAt: '2021-03-03T03:03:03Z',
      expiresAt: { days: 120 },
      updatedAt: { days: -245 },
      status: ['client transfer prohibited'],
      nameservers: ['ns1.internal-referral.com'],
    },
    referral: 'http://rdap-user:s3cret@169.254.169.254/latest/meta-data/iam/',
  },
};
export default scenario;
