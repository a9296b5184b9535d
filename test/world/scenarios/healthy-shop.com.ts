/** A healthy `.com`: Verisign-shaped RDAP with registrar, locks, DNSSEC and a year to run. */
import { renewalSeries } from '../ct-history.ts';
import { bulkSenderSpf, googleMx, googleWorkspaceSpf } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'healthy-shop.com',
  about: 'Everything in order: renewed well ahead, locked against transfer, DNSSEC delegated.',
  // The site answers 200 with its newest CT certificate (trusted in the world): the live probe
  // passes, and on Node ARI is asked about the served leaf before CT answers.
  https: { mode: 'ok', serves: 0 },
  rdap: {
    registry: {
      registrar: { name: 'MarkMonitor Inc.', ianaId: '292' },
      registeredAt: '2009-05-14T17:22:08Z',
      expiresAt: { days: 400 },
      updatedAt: { days: -45 },
      status: [
        'client delete prohibited',
        'client transfer prohibited',
        'client update prohibited',
        'server delete prohibited',
        'server transfer prohibited',
        'server update prohibited',
      ],
      nameservers: ['ns1.healthy-shop.com', 'ns2.healthy-shop.com'],
      delegationSigned: true,
    },
  },
  // Let's Encrypt renewals on an irregular, ARI-like cadence (56–62 days), newest 20 days ago.
  ct: {
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: ['healthy-shop.com', 'www.healthy-shop.com'],
      count: 6,
      lastIssuedDaysAgo: 20,
      everyDays: [58, 61, 56, 62, 59],
    }),
  },
  // Signed zone on its own name servers; Google Workspace mail with SendGrid; strict DMARC; CAA for
  // Let's Encrypt. The address is loopback so the world's HTTPS site answers the live probe.
  dns: {
    dnssec: 'signed',
    records: {
      'healthy-shop.com': {
        A: ['127.0.0.1'],
        NS: ['ns1.healthy-shop.com', 'ns2.healthy-shop.com'],
        MX: googleMx,
        TXT: [
          'v=spf1 include:_spf.google.com include:sendgrid.net -all',
          'google-site-verification=4ibFUgB5wrLLmWv4Uoa2YCUtrHm3Cc7mgdKY_vqBnEM',
        ],
        CAA: [
          { tag: 'issue', value: 'letsencrypt.org' },
          { tag: 'issuewild', value: ';' },
          { tag: 'iodef', value: 'mailto:security@healthy-shop.com' },
        ],
        DS: [
          {
            keyTag: 2371,
            algorithm: 13,
            digestType: 2,
            digest: 'c988ec423e3880eb8dd8a46fe06ce4a3c2a2b8d3a5f0b0e9f0a1d5b6c7e8f901',
          },
        ],
        DNSKEY: [
          {
            flags: 257,
            algorithm: 13,
            key: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
          },
          {
            flags: 256,
            algorithm: 13,
            key: 'oJMRESz5E4gYzS/q6XDrvU1qMPYIjCWzJaOau8XNEZeqCYKD5ar0IRd8KqXXFJkqmVfRvMGPmM1x8fGAa2XhSA==',
          },
        ],
      },
      'www.healthy-shop.com': { CNAME: 'healthy-shop.com' },
      'blog.healthy-shop.com': { A: ['127.0.0.1'] },
      'ns1.healthy-shop.com': { A: ['198.51.100.53'] },
      'ns2.healthy-shop.com': { A: ['203.0.113.53'] },
      '_dmarc.healthy-shop.com': {
        TXT: [
          'v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc-reports@healthy-shop.com; adkim=s; aspf=s',
        ],
      },
      '_mta-sts.healthy-shop.com': { TXT: ['v=STSv1; id=20260301T000000'] },
      '_smtp._tls.healthy-shop.com': { TXT: ['v=TLSRPTv1; rua=mailto:tls-reports@healthy-shop.com'] },
      ...googleWorkspaceSpf,
      ...bulkSenderSpf,
    },
  },
};
export default scenario;
