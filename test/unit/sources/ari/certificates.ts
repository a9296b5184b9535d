/** Real certificates for the ARI tests, made with @peculiar/x509: a chosen serial and AKI, any issuer. */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 86_400_000;

let keys: Promise<webcrypto.CryptoKeyPair> | undefined;

export interface LeafOptions {
  /** Hex serial as given to the generator (it adds the sign byte itself). */
  serial: string;
  /** Hex AKI keyIdentifier; omitted: no AKI extension. */
  authorityKeyId?: string;
  issuer?: string;
  notBefore?: Date;
  lifetimeDays?: number;
  names?: string[];
}

/** The DER of a leaf with the given serial and Authority Key Identifier. */
export async function leafDer(options: LeafOptions): Promise<Uint8Array> {
  x509.cryptoProvider.set(webcrypto);
  keys ??= webcrypto.subtle.generateKey(P256, true, ['sign', 'verify']);
  const pair = await keys;
  const notBefore = options.notBefore ?? new Date('2026-10-01T00:00:00Z');
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: options.serial,
    subject: `CN=${options.names?.[0] ?? 'shop.com'}`,
    issuer: options.issuer ?? "C=US, O=Let's Encrypt, CN=R11",
    publicKey: pair.publicKey,
    signingKey: pair.privateKey,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (options.lifetimeDays ?? 90) * DAY_MS - 1000),
    signingAlgorithm: P256,
    extensions: [
      new x509.SubjectAlternativeNameExtension(
        (options.names ?? ['shop.com']).map((value) => ({ type: 'dns' as const, value })),
      ),
      ...(options.authorityKeyId ? [new x509.AuthorityKeyIdentifierExtension(options.authorityKeyId)] : []),
    ],
  });
  return new Uint8Array(cert.rawData);
}
