/**
 * The real bytes of the world's CT certificates: each scenario certificate as a precertificate and
 * as its final certificate (same issuer, serial and dates), issued by a test CA under an
 * intermediate named like the scenario's CA. The crt.sh fake downloads them (`?d=`), the Cert
 * Spotter fake expands them (`cert_der`), and the HTTPS site can serve one, so all three agree.
 */
import type { DatedCertificate } from './ct-history.ts';
import { createTestCa, type IssuedCtLeaf, type TestCa } from './test-ca.ts';

export type CtCertificateKind = 'precertificate' | 'certificate';

export interface CtCertificates {
  /** The DER of `cert`'s precertificate or final certificate. */
  der(cert: DatedCertificate, kind: CtCertificateKind): Promise<Uint8Array>;
  /** The final certificate with its chain and key, for a TLS server. */
  serving(cert: DatedCertificate): Promise<IssuedCtLeaf>;
}

/**
 * Issues through `ca` (default: a fresh test CA). A certificate is made once, keyed by issuer and
 * serial: the world's dates move with the clock, its serials do not.
 */
export function ctCertificates(ca?: TestCa): CtCertificates {
  const authority = ca ? Promise.resolve(ca) : createTestCa();
  const made = new Map<string, Promise<IssuedCtLeaf>>();
  const issue = (cert: DatedCertificate, kind: CtCertificateKind) => {
    const key = `${kind}|${cert.issuer.dn}|${cert.serial}`;
    let leaf = made.get(key);
    if (!leaf) {
      leaf = authority.then((testCa) =>
        testCa.issueAs({
          issuerDn: cert.issuer.dn,
          serial: cert.serial,
          notBefore: cert.notBefore,
          notAfter: cert.notAfter,
          names: cert.names,
          commonName: cert.commonName,
          precertificate: kind === 'precertificate',
        }),
      );
      made.set(key, leaf);
    }
    return leaf;
  };
  return {
    der: async (cert, kind) => (await issue(cert, kind)).der,
    serving: (cert) => issue(cert, 'certificate'),
  };
}
