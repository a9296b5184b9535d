/**
 * SPF records of well-known mail senders, as their zones publish them (trimmed), shared by the DNS
 * scenarios so include chains count real-shaped lookups. Lookups each include costs are noted.
 */
import type { DnsZoneRecords } from './doh.ts';

/** `include:_spf.google.com` costs 4 lookups (itself + three netblock includes). */
export const googleWorkspaceSpf: Record<string, DnsZoneRecords> = {
  '_spf.google.com': {
    TXT: [
      'v=spf1 include:_netblocks.google.com include:_netblocks2.google.com include:_netblocks3.google.com ~all',
    ],
  },
  '_netblocks.google.com': {
    TXT: [
      'v=spf1 ip4:35.190.247.0/24 ip4:64.233.160.0/19 ip4:66.102.0.0/20 ip4:66.249.80.0/20 ip4:72.14.192.0/18 ip4:74.125.0.0/16 ip4:108.177.8.0/21 ip4:173.194.0.0/16 ip4:209.85.128.0/17 ip4:216.58.192.0/19 ip4:216.239.32.0/19 ~all',
    ],
  },
  '_netblocks2.google.com': {
    TXT: [
      'v=spf1 ip6:2001:4860:4000::/36 ip6:2404:6800:4000::/36 ip6:2607:f8b0:4000::/36 ip6:2800:3f0:4000::/36 ip6:2a00:1450:4000::/36 ip6:2c0f:fb50:4000::/36 ~all',
    ],
  },
  '_netblocks3.google.com': {
    TXT: [
      'v=spf1 ip4:172.217.0.0/19 ip4:172.217.32.0/20 ip4:172.217.128.0/19 ip4:172.217.160.0/20 ip4:172.217.192.0/19 ip4:172.253.56.0/21 ip4:172.253.112.0/20 ip4:108.177.96.0/19 ip4:35.191.0.0/16 ip4:130.211.0.0/22 ~all',
    ],
  },
};

/** `include:spf.protection.outlook.com` costs 2 lookups. Its record is split in two strings. */
export const microsoft365Spf: Record<string, DnsZoneRecords> = {
  'spf.protection.outlook.com': {
    TXT: [
      [
        'v=spf1 ip4:40.92.0.0/15 ip4:40.107.0.0/16 ip4:52.100.0.0/15 ip4:52.102.0.0/16 ip4:52.103.0.0/17 ip4:104.47.0.0/17 ',
        'ip6:2a01:111:f400::/48 ip6:2a01:111:f403::/49 include:spfd.protection.outlook.com -all',
      ],
    ],
  },
  'spfd.protection.outlook.com': {
    TXT: [
      'v=spf1 ip4:51.4.72.0/24 ip4:51.5.72.0/24 ip4:51.5.80.0/27 ip4:20.47.149.138/32 ip4:51.4.80.0/27 -all',
    ],
  },
};

/** One lookup each. */
export const bulkSenderSpf: Record<string, DnsZoneRecords> = {
  'sendgrid.net': {
    TXT: [
      'v=spf1 ip4:167.89.0.0/17 ip4:208.117.48.0/20 ip4:50.31.32.0/19 ip4:198.37.144.0/20 ip4:198.21.0.0/21 ip4:192.254.112.0/20 ip4:168.245.0.0/17 ip4:149.72.0.0/16 ip4:159.183.0.0/16 ~all',
      'google-site-verification=NNGrjsVwXrL2DSDl5-EhjTJ1wmmwuKd4gX5jfCXj7bY',
    ],
  },
  'servers.mcsv.net': { TXT: ['v=spf1 ip4:205.201.128.0/20 ip4:198.2.128.0/18 ip4:148.105.8.0/21 -all'] },
  'mail.zendesk.com': {
    TXT: ['v=spf1 ip4:192.161.144.0/20 ip4:185.12.80.0/22 ip4:188.172.128.0/20 ip4:216.198.0.0/18 ~all'],
  },
};

/** Mail exchangers of a Google Workspace customer. */
export const googleMx = [
  { priority: 1, host: 'aspmx.l.google.com' },
  { priority: 5, host: 'alt1.aspmx.l.google.com' },
  { priority: 5, host: 'alt2.aspmx.l.google.com' },
  { priority: 10, host: 'alt3.aspmx.l.google.com' },
  { priority: 10, host: 'alt4.aspmx.l.google.com' },
];

/**
 * The usual records of a small business domain on Google Workspace: address, name servers at a
 * DNS host, MX, one SPF record, and DMARC when given. Scenarios spread it and add their own names.
 */
export function workspaceZone(domain: string, spf: string, dmarc?: string): Record<string, DnsZoneRecords> {
  const zone: Record<string, DnsZoneRecords> = {
    [domain]: {
      A: ['192.0.2.80'],
      NS: ['ns-cloud-c1.googledomains.com', 'ns-cloud-c2.googledomains.com'],
      MX: googleMx,
      TXT: [spf],
    },
    ...googleWorkspaceSpf,
  };
  if (dmarc !== undefined) zone[`_dmarc.${domain}`] = { TXT: [dmarc] };
  return zone;
}
