/**
 * A throw-away certificate authority made at test time (ECDSA P-256 through WebCrypto and
 * @peculiar/x509): the loopback HTTPS site serves leaves it issues, and clients trust its PEM.
 */
// @peculiar/x509 pulls in tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { KeyObject, sign, webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import * as asn1 from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';

const P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 86_400_000;
/** Leaves are valid from a day before `now` for this many days. */
export const TEST_LEAF_VALIDITY_DAYS = 30;

export interface TestCa {
  /** The CA certificate, PEM: pass it as the probe's `ca` or through `NODE_EXTRA_CA_CERTS`. */
  certPem: string;
  /** Issues a serving certificate for `names` (DNS SANs), with its PKCS#8 private key. */
  issue(names: readonly string[]): Promise<IssuedLeaf>;
  /**
   * Issues a certificate as a CT log holds it: under an intermediate named `issuerDn` (made once per
   * name, signed by this CA, so a site serving the result with its chain is trusted), with the given
   * serial and dates, and the CT poison extension when it is a precertificate.
   */
  issueAs(spec: CtLeafSpec): Promise<IssuedCtLeaf>;
}

export interface IssuedLeaf {
  certPem: string;
  keyPem: string;
}

export interface CtLeafSpec {
  /** Issuer DN as crt.sh prints it; not a DN at all (crt.sh's `Issuer Not Found`) becomes its CN. */
  issuerDn: string;
  /** Hex serial; a `00` is put in front when the first byte has the high bit set (DER). */
  serial: string;
  notBefore: Date;
  notAfter: Date;
  names: readonly string[];
  commonName: string | null;
  precertificate: boolean;
  /** The intermediate's notAfter (an expired or expiring intermediate); default the CA's own. */
  intermediateNotAfter?: Date;
}

/** A CT certificate: its DER, and (for serving it) the PEM chain, leaf first, and the key. */
export interface IssuedCtLeaf extends IssuedLeaf {
  der: Uint8Array;
}

interface Intermediate {
  signingKey: KeyObject;
  pem: string;
  name: asn1.Name;
  authorityKeyId: asn1.Extension;
}

/** An extension made by @peculiar/x509 as the ASN.1 class the certificate is built from. */
function asnExtension(extension: x509.Extension): asn1.Extension {
  return AsnConvert.parse(extension.rawData, asn1.Extension);
}

const ECDSA_SHA256 = new asn1.AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.2' });
/** RFC 6962 §3.1: the critical extension that marks a precertificate, with an ASN.1 NULL value. */
const CT_POISON = new asn1.Extension({
  extnID: '1.3.6.1.4.1.11129.2.4.3',
  critical: true,
  extnValue: new OctetString(new Uint8Array([5, 0]).buffer),
});
const CT_LEAF_EXTENSIONS = [
  new x509.BasicConstraintsExtension(false, undefined, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
].map(asnExtension);

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(P256, true, ['sign', 'verify']);
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** Creates a fresh CA whose certificates are valid around `now` (the wall clock TLS checks against). */
export async function createTestCa(now: Date = new Date()): Promise<TestCa> {
  x509.cryptoProvider.set(webcrypto);
  const notBefore = new Date(now.getTime() - DAY_MS);
  const notAfter = new Date(now.getTime() + TEST_LEAF_VALIDITY_DAYS * DAY_MS);
  const caKeys = await generateKeys();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Website Checks Test Root, O=Website Checks test world',
    keys: caKeys,
    notBefore,
    notAfter: new Date(notAfter.getTime() + DAY_MS),
    signingAlgorithm: P256,
    extensions: [
      // Path length 1: the intermediates named like real CAs (issueAs) sit below it.
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const intermediates = new Map<string, Promise<Intermediate>>();
  const intermediateFor = (issuerDn: string, until: Date = notAfter) => {
    const key = `${issuerDn}|${until.toISOString()}`;
    let made = intermediates.get(key);
    if (!made) {
      made = (async () => {
        const keys = await generateKeys();
        const cert = await x509.X509CertificateGenerator.create({
          subject: issuerDn.includes('=') ? issuerDn : `CN=${issuerDn}`,
          issuer: caCert.subject,
          publicKey: keys.publicKey,
          signingKey: caKeys.privateKey,
          notBefore: new Date(
            Math.min(notBefore.getTime(), until.getTime() - TEST_LEAF_VALIDITY_DAYS * DAY_MS),
          ),
          notAfter: until,
          signingAlgorithm: P256,
          extensions: [
            new x509.BasicConstraintsExtension(true, 0, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
            await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
            await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
          ],
        });
        return {
          signingKey: KeyObject.from(keys.privateKey),
          pem: cert.toString('pem'),
          name: AsnConvert.parse(cert.subjectName.toArrayBuffer(), asn1.Name),
          authorityKeyId: asnExtension(await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey)),
        };
      })();
      intermediates.set(key, made);
    }
    return made;
  };
  // Every CT leaf shares one key: only its certificate matters to the tests.
  const ctLeaf = generateKeys().then(async (keys) => ({
    spki: AsnConvert.parse(
      await webcrypto.subtle.exportKey('spki', keys.publicKey),
      asn1.SubjectPublicKeyInfo,
    ),
    keyPem: await privateKeyPem(keys.privateKey),
  }));

  return {
    certPem: caCert.toString('pem'),
    // Built with the ASN.1 classes and signed synchronously: the certificate generator takes
    // milliseconds per certificate, too slow for a CT listing of a thousand.
    async issueAs(spec) {
      const intermediate = await intermediateFor(spec.issuerDn, spec.intermediateNotAfter);
      const leaf = await ctLeaf;
      const serial = /^[89a-f]/i.test(spec.serial) ? `00${spec.serial}` : spec.serial;
      const extensions = [
        ...CT_LEAF_EXTENSIONS,
        new asn1.Extension({
          extnID: asn1.id_ce_subjectAltName,
          critical: false,
          extnValue: new OctetString(
            AsnConvert.serialize(
              new asn1.SubjectAlternativeName(spec.names.map((dNSName) => new asn1.GeneralName({ dNSName }))),
            ),
          ),
        }),
        intermediate.authorityKeyId,
        ...(spec.precertificate ? [CT_POISON] : []),
      ];
      const tbsCertificate = new asn1.TBSCertificate({
        version: asn1.Version.v3,
        serialNumber: new Uint8Array(Buffer.from(serial, 'hex')).buffer,
        signature: ECDSA_SHA256,
        issuer: intermediate.name,
        validity: new asn1.Validity({ notBefore: spec.notBefore, notAfter: spec.notAfter }),
        subject: new asn1.Name(
          spec.commonName
            ? [
                new asn1.RelativeDistinguishedName([
                  new asn1.AttributeTypeAndValue({
                    type: '2.5.4.3',
                    value: new asn1.AttributeValue({ utf8String: spec.commonName }),
                  }),
                ]),
              ]
            : [],
        ),
        subjectPublicKeyInfo: leaf.spki,
        extensions: new asn1.Extensions(extensions),
      });
      const signature = sign(
        'sha256',
        Buffer.from(AsnConvert.serialize(tbsCertificate)),
        intermediate.signingKey,
      );
      const der = new Uint8Array(
        AsnConvert.serialize(
          new asn1.Certificate({
            tbsCertificate,
            signatureAlgorithm: ECDSA_SHA256,
            signatureValue: new Uint8Array(signature).buffer,
          }),
        ),
      );
      return {
        der,
        certPem: `${x509.PemConverter.encode(der.slice().buffer, 'CERTIFICATE')}\n${intermediate.pem}\n`,
        keyPem: leaf.keyPem,
      };
    },
    async issue(names) {
      const leafKeys = await generateKeys();
      const leaf = await x509.X509CertificateGenerator.create({
        subject: `CN=${names[0] ?? 'unnamed'}`,
        issuer: caCert.subject,
        publicKey: leafKeys.publicKey,
        signingKey: caKeys.privateKey,
        notBefore,
        notAfter,
        signingAlgorithm: P256,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value }))),
          await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
        ],
      });
      return { certPem: leaf.toString('pem'), keyPem: await privateKeyPem(leafKeys.privateKey) };
    },
  };
}

/** A CA PEM written to a temp file, for `NODE_EXTRA_CA_CERTS` when the service runs as a child process. */
export interface CaFile {
  path: string;
  remove(): Promise<void>;
}

/** Writes `certPem` to a fresh temp directory; call `remove()` at teardown. */
export async function writeCaFile(certPem: string): Promise<CaFile> {
  const folder = await mkdtemp(join(tmpdir(), 'website-checks-ca-'));
  const path = join(folder, 'test-ca.pem');
  await writeFile(path, certPem, { mode: 0o600 });
  return { path, remove: () => rm(folder, { recursive: true, force: true }) };
}
