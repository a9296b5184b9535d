import { describe, expect, it } from 'vitest';
import { certIdOf, serialContentFromHex } from '../../../../src/sources/ari/cert-id.ts';
import { readCertificate } from '../../../../src/sources/ct/x509.ts';
import { leafDer } from './certificates.ts';

/** The reference's vectors: RFC 9773 Appendix A, Google Trust Services' documentation, a revoked Let's Encrypt certificate. */
const VECTORS = [
  {
    source: 'RFC 9773 Appendix A',
    aki: '69885b6b87464041e1b37b847ba0ae2cde01c8d4',
    serial: '0087654321',
    certId: 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE',
  },
  {
    source: 'Google Trust Services',
    aki: '75bec477ae89f644377dcfb1681f1d1aebdc3459',
    serial: '027183d4a82579070a3d8f609e27cde5',
    certId: 'db7Ed66J9kQ3fc-xaB8dGuvcNFk.AnGD1KgleQcKPY9gnifN5Q',
  },
  {
    source: "Let's Encrypt (revoked)",
    aki: '9327469803a951688e98d6c44248db23bf5894d2',
    serial: '03515bec651a7d0084f9517fc2da98d2fdb9',
    certId: 'kydGmAOpUWiOmNbEQkjbI79YlNI.A1Fb7GUafQCE-VF_wtqY0v25',
  },
];

const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

describe('the RFC 9773 CertID', () => {
  it.each(VECTORS)('matches the $source vector, read from a real certificate', async (vector) => {
    const facts = readCertificate(await leafDer({ serial: vector.serial, authorityKeyId: vector.aki }));
    expect(facts?.authorityKeyId).toEqual(hexBytes(vector.aki));
    expect(certIdOf(facts?.authorityKeyId ?? new Uint8Array(), facts?.serialNumber ?? new Uint8Array())).toBe(
      vector.certId,
    );
  });

  it.each(VECTORS)(
    'matches the $source vector from a CT hex serial with or without the sign byte',
    (vector) => {
      const bare = vector.serial.replace(/^00/, '');
      for (const hex of [bare, `00${bare}`, bare.toUpperCase()]) {
        expect(certIdOf(hexBytes(vector.aki), serialContentFromHex(hex) ?? new Uint8Array())).toBe(
          vector.certId,
        );
      }
    },
  );

  it('keeps the sign byte of a serial whose high bit is set', async () => {
    const facts = readCertificate(await leafDer({ serial: '80ff01', authorityKeyId: '0102' }));
    expect(facts?.serialNumber).toEqual(hexBytes('0080ff01'));
    expect(facts?.serial).toBe('80ff01');
    expect(certIdOf(hexBytes('0102'), facts?.serialNumber ?? new Uint8Array())).toBe('AQI.AID_AQ');
    expect(serialContentFromHex('80ff01')).toEqual(hexBytes('0080ff01'));
    expect(serialContentFromHex('000080ff01')).toEqual(hexBytes('0080ff01'));
    // Below 0x80 no sign byte is added, and extra zero bytes go.
    expect(serialContentFromHex('00007f')).toEqual(hexBytes('7f'));
    expect(serialContentFromHex('abc')).toEqual(hexBytes('0abc'));
  });

  it('refuses a serial that is not hex', () => {
    for (const text of ['', '04zz', '0x04', '04 05']) expect(serialContentFromHex(text)).toBeNull();
  });
});

describe('reading a certificate', () => {
  it('reads issuer DN, validity and no AKI when the certificate has none', async () => {
    const notBefore = new Date('2026-09-01T09:00:04Z');
    const facts = readCertificate(
      await leafDer({
        serial: '04aa',
        issuer: 'C=US, O="Cloudflare, Inc.", CN=Cloudflare Inc ECC CA-3',
        notBefore,
      }),
    );
    expect(facts).toMatchObject({
      authorityKeyId: null,
      issuerDn: 'C=US, O="Cloudflare, Inc.", CN=Cloudflare Inc ECC CA-3',
      notBefore,
    });
  });

  it('gives null for bytes that are no certificate', async () => {
    const der = await leafDer({ serial: '04aa', authorityKeyId: '01' });
    for (const bytes of [
      new Uint8Array(),
      Uint8Array.of(0x30, 0x03, 0x02, 0x01),
      der.subarray(0, 100),
      new TextEncoder().encode('-----BEGIN CERTIFICATE-----'),
    ]) {
      expect(readCertificate(bytes)).toBeNull();
    }
  });
});
