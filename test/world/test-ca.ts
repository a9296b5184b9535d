/**
 * A throw-away certificate authority made at test time (ECDSA P-256 through WebCrypto and
 * @peculiar/x509): the loopback HTTPS site serves leaves it issues, and clients trust its PEM.
 */
// @peculiar/x509 pulls in tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
}

export interface IssuedLeaf {
  certPem: string;
  keyPem: string;
}

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
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  return {
    certPem: caCert.toString('pem'),
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
