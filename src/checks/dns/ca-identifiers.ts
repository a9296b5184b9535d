/**
 * The CAA issuer domain names (RFC 8659 §4.2) of common public CAs, matched from the issuer name
 * or DN that CT reports. The identifiers come from each CA's CPS section on CAA.
 */

interface CaEntry {
  /** Display name used in findings. */
  name: string;
  /** Lower-case fragments of the issuer name or DN that identify the CA. */
  match: readonly string[];
  /** Issuer domain names the CA accepts in `issue`/`issuewild`. */
  identifiers: readonly string[];
}

// Order matters: brands issued from another CA's hierarchy (ZeroSSL on Sectigo, Azure on DigiCert)
// come before the hierarchy so the brand's own identifiers are tried too.
const CAS: readonly CaEntry[] = [
  {
    name: "Let's Encrypt",
    match: ["let's encrypt", 'lets encrypt', 'isrg'],
    identifiers: ['letsencrypt.org'],
  },
  { name: 'ZeroSSL', match: ['zerossl'], identifiers: ['sectigo.com', 'zerossl.com'] },
  { name: 'Google Trust Services', match: ['google trust services', 'gts ca'], identifiers: ['pki.goog'] },
  {
    name: 'Amazon',
    match: ['amazon'],
    identifiers: ['amazon.com', 'amazontrust.com', 'awstrust.com', 'amazonaws.com'],
  },
  { name: 'Microsoft', match: ['microsoft'], identifiers: ['microsoft.com', 'digicert.com'] },
  { name: 'Apple', match: ['apple public', 'apple inc'], identifiers: ['apple.com'] },
  { name: 'Cloudflare', match: ['cloudflare'], identifiers: ['digicert.com', 'cloudflare.com'] },
  {
    name: 'Sectigo',
    match: ['sectigo', 'comodo', 'usertrust'],
    identifiers: ['sectigo.com', 'comodoca.com', 'comodo.com', 'usertrust.com', 'trust-provider.com'],
  },
  {
    name: 'DigiCert',
    match: ['digicert', 'geotrust', 'rapidssl', 'thawte', 'encryption everywhere', 'symantec'],
    identifiers: [
      'digicert.com',
      'symantec.com',
      'geotrust.com',
      'rapidssl.com',
      'thawte.com',
      'digitalcertvalidation.com',
    ],
  },
  { name: 'GlobalSign', match: ['globalsign'], identifiers: ['globalsign.com'] },
  { name: 'Buypass', match: ['buypass'], identifiers: ['buypass.com', 'buypass.no'] },
  { name: 'SSL.com', match: ['ssl.com', 'ssl corporation'], identifiers: ['ssl.com'] },
  { name: 'Entrust', match: ['entrust', 'affirmtrust'], identifiers: ['entrust.net', 'affirmtrust.com'] },
  { name: 'GoDaddy', match: ['godaddy', 'starfield'], identifiers: ['godaddy.com', 'starfieldtech.com'] },
  { name: 'Certum', match: ['certum', 'asseco', 'unizeto'], identifiers: ['certum.pl', 'certum.eu'] },
  { name: 'HARICA', match: ['harica', 'hellenic academic'], identifiers: ['harica.gr'] },
];

/** The CA behind an issuer name or DN, or null for a CA this table does not know. */
export function identifyCa(issuer: {
  name: string;
  dn: string;
}): { name: string; identifiers: readonly string[] } | null {
  const text = `${issuer.name} ${issuer.dn}`.toLowerCase();
  return CAS.find((ca) => ca.match.some((fragment) => text.includes(fragment))) ?? null;
}
