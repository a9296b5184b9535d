/**
 * Reading certificate bytes (DER, or crt.sh's PEM) with a maintained ASN.1 library: the facts the
 * checks compare (serial, issuer, validity) and the two an ARI CertID is made of (RFC 9773 §4.1).
 */
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifier,
  Certificate,
  id_ce_authorityKeyIdentifier,
  id_ce_subjectAltName,
  type Name,
  SubjectAlternativeName,
  type TBSCertificate,
} from '@peculiar/asn1-x509';
import { canonicalSerial, isDnsName } from './issuance.ts';

export interface CertificateFacts {
  /** Lower-case hex serial without leading zero bytes, as `Issuance.serial`. */
  serial: string;
  /** The DER serialNumber content octets, sign byte kept (a CertID's second half). */
  serialNumber: Uint8Array;
  /** The Authority Key Identifier's keyIdentifier (a CertID's first half); null when absent. */
  authorityKeyId: Uint8Array | null;
  /** Issuer DN in certificate order as crt.sh prints it, e.g. `C=US, O=Let's Encrypt, CN=R11`. */
  issuerDn: string;
  notBefore: Date;
  notAfter: Date;
}

/** Short names crt.sh (OpenSSL) prints for the usual DN attributes; others print as their OID. */
const ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.6': 'C',
  '2.5.4.8': 'ST',
  '2.5.4.7': 'L',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.97': 'organizationIdentifier',
};

/** The facts of a certificate a site served: those above, its subject and its DNS names. */
export interface ChainCertificateFacts extends CertificateFacts {
  subjectDn: string;
  /** DNS names of the subjectAltName extension, lower case (the subject CN is not read: RFC 6125 §6.4.4). */
  names: string[];
  /** Subject and issuer are the same name: a root, or a self-signed leaf. */
  selfIssued: boolean;
}

/** The facts of a DER certificate (or precertificate); null for bytes that are not one. Never throws. */
export function readCertificate(der: Uint8Array): CertificateFacts | null {
  try {
    return certificateFacts(AsnConvert.parse(der, Certificate).tbsCertificate);
  } catch {
    return null;
  }
}

/**
 * The facts of one certificate of a served chain, which may not have verified: they say what the
 * certificate claims (dates, names), never that it is genuine. Null for bytes that are not one.
 */
export function readChainCertificate(der: Uint8Array): ChainCertificateFacts | null {
  try {
    const tbs = AsnConvert.parse(der, Certificate).tbsCertificate;
    const facts = certificateFacts(tbs);
    if (!facts) return null;
    const san = tbs.extensions?.find((extension) => extension.extnID === id_ce_subjectAltName);
    const names = san
      ? AsnConvert.parse(san.extnValue, SubjectAlternativeName).flatMap((name) =>
          name.dNSName && isDnsName(name.dNSName.toLowerCase()) ? [name.dNSName.toLowerCase()] : [],
        )
      : [];
    const subjectDn = printName(tbs.subject);
    return {
      ...facts,
      subjectDn,
      names: [...new Set(names)].sort(),
      selfIssued: subjectDn === facts.issuerDn,
    };
  } catch {
    return null;
  }
}

/** Throws on malformed extensions; the readers above turn that into null. */
function certificateFacts(tbs: TBSCertificate): CertificateFacts | null {
  const serialNumber = new Uint8Array(tbs.serialNumber);
  if (serialNumber.length === 0) return null;
  const aki = tbs.extensions?.find((extension) => extension.extnID === id_ce_authorityKeyIdentifier);
  const keyId = aki ? AsnConvert.parse(aki.extnValue, AuthorityKeyIdentifier).keyIdentifier : undefined;
  return {
    serial: canonicalSerial(Buffer.from(serialNumber).toString('hex')),
    serialNumber,
    authorityKeyId: keyId ? new Uint8Array(keyId.buffer) : null,
    issuerDn: printName(tbs.issuer),
    notBefore: tbs.validity.notBefore.getTime(),
    notAfter: tbs.validity.notAfter.getTime(),
  };
}

/** `C=US, O="Cloudflare, Inc.", CN=…`: values holding a comma are double-quoted, as crt.sh does. */
function printName(name: Name): string {
  return name
    .flatMap((rdn) => [...rdn])
    .map(({ type, value }) => {
      const text = value.toString();
      const printed = /[,"]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
      return `${ATTRIBUTE_NAMES[type] ?? type}=${printed}`;
    })
    .join(', ');
}

const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';
const PEM_END = '-----END CERTIFICATE-----';
/**
 * A block's body: a line break, then base64 and white space only. One character class, so it is
 * matched in linear time (a pattern with overlapping white-space parts took seconds on a few
 * thousand spaces, hours on a 32 KiB reply).
 */
const PEM_BODY = /^\s[A-Za-z0-9+/=\s]+$/;

/** The DER inside a body holding exactly one PEM `CERTIFICATE` block (crt.sh `?d=`); null otherwise. */
export function pemCertificateDer(pem: string): Uint8Array | null {
  const text = pem.trim();
  if (!text.startsWith(PEM_BEGIN) || !text.endsWith(PEM_END)) return null;
  const body = text.slice(PEM_BEGIN.length, -PEM_END.length);
  return PEM_BODY.test(body) ? base64Der(body.replace(/\s+/g, '')) : null;
}

/** Strict base64 (Cert Spotter `cert_der`) to bytes; null for anything else. */
export function base64Der(base64: string): Uint8Array | null {
  if (base64.length === 0 || base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  return new Uint8Array(Buffer.from(base64, 'base64'));
}
