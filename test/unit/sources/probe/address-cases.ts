/**
 * The address table shared by the policy and SSRF tests: each spelling with the range that must
 * refuse it, or `null` when the probe may connect to it.
 */

export const ADDRESS_CASES: readonly (readonly [address: string, range: string | null])[] = [
  // IPv4 special-purpose registry (RFC 6890 and successors)
  ['0.0.0.0', '0.0.0.0/8 "this network"'],
  ['0.1.2.3', '0.0.0.0/8 "this network"'],
  ['10.0.0.1', '10.0.0.0/8 private'],
  ['10.255.255.255', '10.0.0.0/8 private'],
  ['100.64.0.1', '100.64.0.0/10 shared address space (CGNAT)'],
  ['100.127.255.254', '100.64.0.0/10 shared address space (CGNAT)'],
  ['100.63.255.255', null],
  ['100.128.0.0', null],
  ['127.0.0.1', '127.0.0.0/8 loopback'],
  ['127.255.255.254', '127.0.0.0/8 loopback'],
  ['169.254.0.1', '169.254.0.0/16 link-local'],
  ['169.254.169.254', '169.254.169.254/32 cloud metadata (AWS/GCP/Azure/OCI)'],
  ['100.100.100.200', '100.100.100.200/32 cloud metadata (Alibaba)'],
  ['168.63.129.16', '168.63.129.16/32 cloud metadata (Azure WireServer)'],
  ['172.16.0.1', '172.16.0.0/12 private'],
  ['172.31.255.255', '172.16.0.0/12 private'],
  ['172.15.255.255', null],
  ['172.32.0.1', null],
  ['192.0.0.8', '192.0.0.0/24 IETF protocol assignments'],
  ['192.0.2.1', '192.0.2.0/24 documentation (TEST-NET-1)'],
  ['192.88.99.1', '192.88.99.0/24 6to4 relay anycast (deprecated)'],
  ['192.168.1.1', '192.168.0.0/16 private'],
  ['198.18.0.1', '198.18.0.0/15 benchmarking'],
  ['198.19.255.255', '198.18.0.0/15 benchmarking'],
  ['198.20.0.0', null],
  ['198.51.100.7', '198.51.100.0/24 documentation (TEST-NET-2)'],
  ['203.0.113.9', '203.0.113.0/24 documentation (TEST-NET-3)'],
  ['224.0.0.1', '224.0.0.0/4 multicast'],
  ['239.255.255.250', '224.0.0.0/4 multicast'],
  ['240.0.0.1', '240.0.0.0/4 reserved'],
  ['255.255.255.255', '255.255.255.255/32 limited broadcast'],
  ['8.8.8.8', null],
  ['1.1.1.1', null],
  ['93.184.215.14', null],
  // IPv6: compressed, expanded and upper-case spellings
  ['::', '::/128 unspecified'],
  ['0:0:0:0:0:0:0:0', '::/128 unspecified'],
  ['::1', '::1/128 loopback'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', '::1/128 loopback'],
  ['::127.0.0.1', '::/96 IPv4-compatible (deprecated)'],
  ['fc00::1', 'fc00::/7 unique local'],
  ['fd12:3456:789a::1', 'fc00::/7 unique local'],
  ['FD00:EC2::254', 'fd00:ec2::254/128 cloud metadata (AWS IMDS)'],
  ['fd00:ec2:0:0:0:0:0:254', 'fd00:ec2::254/128 cloud metadata (AWS IMDS)'],
  ['fe80::1', 'fe80::/10 link-local'],
  ['FE80::1', 'fe80::/10 link-local'],
  ['febf:ffff::1', 'fe80::/10 link-local'],
  ['fec0::1', 'fec0::/10 site-local (deprecated)'],
  ['ff02::1', 'ff00::/8 multicast'],
  ['FF05::1:3', 'ff00::/8 multicast'],
  ['2001:db8::1', '2001:db8::/32 documentation'],
  ['2001:DB8:0:0:0:0:0:1', '2001:db8::/32 documentation'],
  ['3fff::1', '3fff::/20 documentation'],
  ['100::1', '100::/64 discard-only'],
  ['2001::1', '2001::/32 Teredo'],
  ['2001:10::1', '2001::/23 IETF protocol assignments'],
  ['2001:1ff::1', '2001::/23 IETF protocol assignments'],
  ['2002:7f00:1::1', '2002::/16 6to4 (deprecated)'],
  ['5f00::1', '5f00::/16 SRv6 SIDs'],
  ['1::1', 'outside 2000::/3 global unicast'],
  ['4000::1', 'outside 2000::/3 global unicast'],
  ['2606:4700:4700::1111', null],
  ['2001:4860:4860::8888', null],
  ['2A00:1450:4001:82A::200E', null],
  // Zone ids: the zone is ignored for the range, and refused on its own on a global address
  ['fe80::1%eth0', 'fe80::/10 link-local'],
  ['fe80::abcd%25', 'fe80::/10 link-local'],
  ['2606:4700::1%eth0', 'zone id on a global address'],
  // IPv4-mapped (RFC 4291 §2.5.5.2) in both spellings: judged by the embedded address
  ['::ffff:127.0.0.1', '::ffff:0:0/96 IPv4-mapped of 127.0.0.0/8 loopback'],
  ['::ffff:7f00:1', '::ffff:0:0/96 IPv4-mapped of 127.0.0.0/8 loopback'],
  ['::FFFF:10.1.2.3', '::ffff:0:0/96 IPv4-mapped of 10.0.0.0/8 private'],
  [
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::ffff:0:0/96 IPv4-mapped of 169.254.169.254/32 cloud metadata (AWS/GCP/Azure/OCI)',
  ],
  ['::ffff:0.0.0.0', '::ffff:0:0/96 IPv4-mapped of 0.0.0.0/8 "this network"'],
  ['::ffff:8.8.8.8', null],
  ['::ffff:808:808', null],
  // NAT64 well-known prefix (RFC 6052): judged by the embedded address
  ['64:ff9b::7f00:1', '64:ff9b::/96 NAT64 of 127.0.0.0/8 loopback'],
  ['64:ff9b::10.0.0.1', '64:ff9b::/96 NAT64 of 10.0.0.0/8 private'],
  ['64:FF9B::A9FE:A9FE', '64:ff9b::/96 NAT64 of 169.254.169.254/32 cloud metadata (AWS/GCP/Azure/OCI)'],
  ['64:ff9b::808:808', null],
  ['64:ff9b:1::1', '64:ff9b:1::/48 local-use NAT64'],
  // Not an IP literal as net.isIP reads it: refused
  ['', 'unparsable'],
  ['localhost', 'unparsable'],
  ['127.1', 'unparsable'],
  ['0177.0.0.1', 'unparsable'],
  ['0x7f.0.0.1', 'unparsable'],
  ['2130706433', 'unparsable'],
  ['[::1]', 'unparsable'],
  [' 8.8.8.8', 'unparsable'],
  ['1.2.3.4%eth0', 'unparsable'],
  ['::ffff:127.0.0.1:443', 'unparsable'],
];

/** The addresses the policy refuses. */
export const REFUSED_ADDRESSES = ADDRESS_CASES.filter(([, range]) => range !== null).map(
  ([address]) => address,
);

/** The addresses the policy allows. */
export const ALLOWED_ADDRESSES = ADDRESS_CASES.filter(([, range]) => range === null).map(
  ([address]) => address,
);
