/**
 * One friendly issuer name per CA, whichever aggregator answered: derived from the issuer DN's
 * organisation, never from Cert Spotter's own `friendly_name` (crt.sh has none, and the two
 * disagreed: "Sectigo" vs "Sectigo Limited", "DigiCert" vs "Cloudflare, Inc." for one certificate).
 */

/** The big CAs: the friendly name, and the DN organisations (lower case, prefix match) that mean it. */
const CA_ORGANISATIONS: readonly { name: string; organisations: readonly string[] }[] = [
  { name: "Let's Encrypt", organisations: ["let's encrypt", 'internet security research group'] },
  // Cloudflare's own intermediates (Cloudflare Inc ECC CA-3, RSA CA-2) are operated by DigiCert.
  {
    name: 'DigiCert',
    organisations: ['digicert', 'cloudflare', 'geotrust', 'rapidssl', 'thawte', 'symantec', 'verisign'],
  },
  { name: 'Sectigo', organisations: ['sectigo', 'comodo', 'the usertrust network'] },
  { name: 'Google Trust Services', organisations: ['google trust services'] },
  { name: 'Amazon', organisations: ['amazon'] },
  { name: 'GlobalSign', organisations: ['globalsign'] },
  { name: 'GoDaddy', organisations: ['godaddy', 'starfield technologies'] },
  { name: 'Entrust', organisations: ['entrust', 'affirmtrust'] },
  { name: 'Microsoft', organisations: ['microsoft'] },
  { name: 'ZeroSSL', organisations: ['zerossl'] },
  { name: 'Buypass', organisations: ['buypass'] },
  { name: 'SSL.com', organisations: ['ssl corp', 'ssl.com'] },
  { name: 'Apple', organisations: ['apple inc'] },
  { name: 'Certum', organisations: ['asseco data systems', 'unizeto', 'certum'] },
  { name: 'HARICA', organisations: ['hellenic academic and research institutions'] },
];

/** DN attributes in crt.sh / OpenSSL print order; crt.sh double-quotes values holding commas. */
const DN_ATTRIBUTE = /(?:^|,)\s*([A-Za-z.0-9]+)=("(?:[^"]|"")*"|[^,]*)/g;

/** The first value of each attribute type (upper-case keys) in `dn`. */
function dnAttributes(dn: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, key = '', raw = ''] of dn.matchAll(DN_ATTRIBUTE)) {
    if (!attributes.has(key.toUpperCase())) attributes.set(key.toUpperCase(), unquote(raw).trim());
  }
  return attributes;
}

/**
 * One key per issuer DN whatever printed it (crt.sh, Cert Spotter, a DER read here): every
 * attribute in order, quotes undone, spaces trimmed, lower case.
 */
export function issuerDnKey(issuerDn: string): string {
  return [...issuerDn.matchAll(DN_ATTRIBUTE)]
    .map(([, key = '', raw = '']) => `${key.toUpperCase()}=${unquote(raw).trim().toLowerCase()}`)
    .join(',');
}

function unquote(raw: string): string {
  return raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw;
}

/**
 * The friendly issuer name for an issuer DN: the table's name for a big CA's organisation, else the
 * `O=` value as printed, else the `CN=` value, else the whole DN.
 *
 * @example issuerFriendlyName('C=US, O="Cloudflare, Inc.", CN=Cloudflare Inc ECC CA-3') // → 'DigiCert'
 */
export function issuerFriendlyName(issuerDn: string): string {
  const attributes = dnAttributes(issuerDn);
  const organisation = attributes.get('O') || '';
  const lower = organisation.toLowerCase();
  const known = CA_ORGANISATIONS.find((ca) => ca.organisations.some((prefix) => lower.startsWith(prefix)));
  return known?.name ?? (organisation || attributes.get('CN') || issuerDn);
}
