/**
 * The few facts of an X.509 certificate that ARI needs, read from its DER with a maintained ASN.1
 * library (@peculiar/asn1-x509, which runs on Node and on Workers): serial, Authority Key
 * Identifier, issuer DN and validity. Never throws: bytes that are no certificate give null.
 */
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifier,
  Certificate,
  id_ce_authorityKeyIdentifier,
  type Name,
} from '@peculiar/asn1-x509';

export interface CertificateFacts {
  /** The DER `serialNumber` content octets (a sign byte `00` kept). */
  serial: Uint8Array;
  /** The Authority Key Identifier's keyIdentifier, or null when the certificate has none. */
  authorityKeyId: Uint8Array | null;
  /** The issuer DN in crt.sh / Cert Spotter print order, e.g. `C=US, O=Let's Encrypt, CN=R11`. */
  issuerDn: string;
  notBefore: Date;
  notAfter: Date;
}

/** Short names of the DN attributes crt.sh and Cert Spotter print; others show as their OID. */
const ATTRIBUTE_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

/** Reads `der`; null when it is not a parsable X.509 certificate. */
export function readCertificate(der: Uint8Array): CertificateFacts | null {
  try {
    const { tbsCertificate: tbs } = AsnConvert.parse(der, Certificate);
    const aki = tbs.extensions?.find((extension) => extension.extnID === id_ce_authorityKeyIdentifier);
    const keyId = aki ? AsnConvert.parse(aki.extnValue, AuthorityKeyIdentifier).keyIdentifier : undefined;
    const serial = new Uint8Array(tbs.serialNumber);
    if (serial.length === 0) return null;
    return {
      serial,
      authorityKeyId: keyId && keyId.byteLength > 0 ? new Uint8Array(keyId.buffer.slice(0)) : null,
      issuerDn: printDn(tbs.issuer),
      notBefore: tbs.validity.notBefore.getTime(),
      notAfter: tbs.validity.notAfter.getTime(),
    };
  } catch {
    return null;
  }
}

/** A DN as crt.sh prints it: attributes in DER order, `, `-joined, a value holding a comma quoted. */
function printDn(name: Name): string {
  return name
    .flatMap((rdn) =>
      rdn.map((attribute) => {
        const type = ATTRIBUTE_NAMES[attribute.type] ?? attribute.type;
        const value = attribute.value.toString();
        return `${type}=${value.includes(',') ? `"${value.replaceAll('"', '""')}"` : value}`;
      }),
    )
    .join(', ');
}
