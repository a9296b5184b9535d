/**
 * The RFC 9773 CertID: base64url(AKI keyIdentifier) + `.` + base64url(serial content octets),
 * both without padding. The serial is the DER INTEGER's content, so a serial whose first byte is
 * 0x80 or more keeps the leading `00` (dropping it is the usual bug).
 */

/** The CertID of a certificate issued under `authorityKeyId` with DER serial content `serial`. */
export function certIdOf(authorityKeyId: Uint8Array, serial: Uint8Array): string {
  return `${base64url(authorityKeyId)}.${base64url(serial)}`;
}

/**
 * The DER serial content for a hex serial as CT sources print it (crt.sh keeps or drops the sign
 * byte): leading zero bytes stripped, then one `00` put back when the first byte is 0x80 or more.
 * Null for text that is not hex.
 */
export function serialContentFromHex(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]+$/.test(hex)) return null;
  const even = hex.length % 2 ? `0${hex}` : hex;
  let bytes = Uint8Array.from(even.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
  let first = 0;
  while (first < bytes.length - 1 && bytes[first] === 0) first += 1;
  bytes = bytes.subarray(first);
  if ((bytes[0] ?? 0) >= 0x80) {
    const signed = new Uint8Array(bytes.length + 1);
    signed.set(bytes, 1);
    return signed;
  }
  return bytes;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
