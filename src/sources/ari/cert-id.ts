/**
 * The RFC 9773 CertID: base64url(AKI keyIdentifier) + `.` + base64url(serial content octets),
 * both without padding. The serial is the DER INTEGER's content, so a serial whose first byte is
 * 0x80 or more keeps the leading `00` (dropping it is the usual bug).
 */
import { canonicalSerial } from '../ct/issuance.ts';

/** The CertID of a certificate issued under `authorityKeyId` with DER serial content `serial`. */
export function certIdOf(authorityKeyId: Uint8Array, serial: Uint8Array): string {
  return `${Buffer.from(authorityKeyId).toString('base64url')}.${Buffer.from(serial).toString('base64url')}`;
}

/**
 * The DER serial content for a hex serial as CT sources print it (crt.sh keeps or drops the sign
 * byte): leading zero bytes stripped, then one `00` put back when the first byte is 0x80 or more.
 * Null for text that is not hex.
 */
export function serialContentFromHex(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]+$/.test(hex)) return null;
  const bytes = Buffer.from(canonicalSerial(hex.length % 2 ? `0${hex}` : hex), 'hex');
  return (bytes[0] ?? 0) >= 0x80 ? Uint8Array.of(0, ...bytes) : new Uint8Array(bytes);
}
