/** Where a CertID comes from (the served leaf, CT's bytes, CT's serial with a remembered key) and what is not asked. */
import { describe, expect, it } from 'vitest';
import { certIdOf, serialContentFromHex } from '../../../../src/sources/ari/cert-id.ts';
import { createAriLookup } from '../../../../src/sources/ari/lookup.ts';
import type { AriAnswer, AriClient } from '../../../../src/sources/ari/renewal-info.ts';
import type { Issuance } from '../../../../src/sources/ct/issuance.ts';
import { readCertificate } from '../../../../src/sources/ct/x509.ts';
import { leafDer } from './certificates.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const DAY_MS = 86_400_000;
const R11 = "C=US, O=Let's Encrypt, CN=R11";
const AKI = '9327469803a951688e98d6c44248db23bf5894d2';

/** A client that records what it is asked and answers a window for everything. */
function recordingClient(supported = ["Let's Encrypt"]): AriClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    supports: (issuer) => supported.includes(issuer),
    async ask(_issuer, certId) {
      asked.push(certId);
      const answer: AriAnswer = {
        status: 'ok',
        ca: 'letsencrypt',
        window: { start: new Date(NOW.getTime() + DAY_MS), end: new Date(NOW.getTime() + 2 * DAY_MS) },
        explanationUrl: null,
        checkedAt: NOW,
        call: null,
      };
      return answer;
    },
  };
}

function issuance(serial: string | null, overrides: Partial<Issuance> = {}): Issuance {
  return {
    issuer: "Let's Encrypt",
    issuerDn: R11,
    serial,
    notBefore: new Date(NOW.getTime() - 20 * DAY_MS),
    notAfter: new Date(NOW.getTime() + 70 * DAY_MS),
    names: ['shop.com'],
    loggedAt: null,
    crtshId: '15000000001',
    der: null,
    ...overrides,
  };
}

/** The served leaf of R11 (key identifier AKI) with `serial`, issued `daysAgo` before NOW, as the probe reads it. */
async function servedLeaf(serial: string, daysAgo: number) {
  const leaf = readCertificate(
    await leafDer({
      serial,
      authorityKeyId: AKI,
      issuer: R11,
      notBefore: new Date(NOW.getTime() - daysAgo * DAY_MS),
    }),
  );
  if (!leaf) throw new Error('leaf');
  return leaf;
}

const expectedId = (serial: string) =>
  certIdOf(Buffer.from(AKI, 'hex'), serialContentFromHex(serial) ?? new Uint8Array());

describe('the ARI lookup', () => {
  it("learns the issuer's key from the served leaf: a CT serial of the same intermediate needs no bytes", async () => {
    const client = recordingClient();
    let downloads = 0;
    const lookup = createAriLookup({ client, certificateDer: async () => (downloads++, null) });
    const leaf = await servedLeaf('04aa', 80);
    const early = lookup.aboutLeaf(leaf, NOW, 2_000);
    // CT's newest is another certificate (high-bit serial) of the same intermediate.
    const outcome = await lookup.aboutIssuance(issuance('00d2c1b0'), NOW, 2_000, early);
    expect(outcome).toMatchObject({ status: 'ok', certId: expectedId('d2c1b0') });
    expect(downloads).toBe(0);
    expect(client.asked).toEqual([expectedId('04aa'), expectedId('d2c1b0')]);
  });

  it('reuses the early answer when the served leaf is the newest issuance', async () => {
    const client = recordingClient();
    const lookup = createAriLookup({ client });
    const leaf = readCertificate(await leafDer({ serial: '04aa', authorityKeyId: AKI, issuer: R11 }));
    if (!leaf) throw new Error('leaf');
    const early = lookup.aboutLeaf(leaf, NOW, 2_000);
    expect(await lookup.aboutIssuance(issuance('04aa'), NOW, 2_000, early)).toBe(await early.answer);
    expect(client.asked).toHaveLength(1);
  });

  it("downloads CT's bytes only when nothing cheaper gives the CertID, and learns the key even when late", async () => {
    const client = recordingClient();
    const der = await leafDer({ serial: '04bb', authorityKeyId: AKI, issuer: R11 });
    let downloads = 0;
    let deliver: () => void = () => {};
    const delivered = new Promise<void>((resolve) => {
      deliver = resolve;
    });
    let download: Promise<Uint8Array> | undefined;
    const slow = (): Promise<Uint8Array> => {
      downloads++;
      download = delivered.then(() => der);
      return download;
    };
    const lookup = createAriLookup({ client, certificateDer: slow });
    // Too slow for this check (the bytes come only after its 50 ms): unavailable without a CertID…
    expect(await lookup.aboutIssuance(issuance('04bb'), NOW, 50, null)).toMatchObject({
      status: 'unavailable',
      certId: null,
    });
    deliver();
    // The lookup reads the bytes in a reaction registered before this await's.
    await download;
    // …but the key arrived: the next certificate of R11 needs no download.
    expect(await lookup.aboutIssuance(issuance('04cc'), NOW, 2_000, null)).toMatchObject({
      status: 'ok',
      certId: expectedId('04cc'),
    });
    expect(downloads).toBe(1);
  });

  it('Cert Spotter bytes on the issuance are used as they are', async () => {
    const client = recordingClient();
    const der = await leafDer({ serial: '04dd', authorityKeyId: AKI, issuer: R11 });
    const outcome = await createAriLookup({ client }).aboutIssuance(
      issuance(null, { der, crtshId: null }),
      NOW,
      2_000,
      null,
    );
    expect(outcome.certId).toBe(expectedId('04dd'));
  });

  it('expired certificates and CAs without ARI are not asked', async () => {
    const client = recordingClient();
    const lookup = createAriLookup({ client });
    const expired = issuance('04ee', { notAfter: new Date(NOW.getTime() - 1) });
    expect(await lookup.aboutIssuance(expired, NOW, 2_000, null)).toMatchObject({
      status: 'not_found',
      checkedAt: null,
    });
    const sectigo = issuance('04ff', {
      issuer: 'Sectigo',
      issuerDn: 'C=GB, O=Sectigo Limited, CN=Sectigo RSA DV',
    });
    expect(await lookup.aboutIssuance(sectigo, NOW, 2_000, null)).toMatchObject({
      status: 'not_supported',
      ca: null,
    });
    const leaf = await servedLeaf('0401', 100);
    expect(await lookup.aboutLeaf(leaf, NOW, 2_000).answer).toMatchObject({ status: 'not_found' });
    expect(client.asked).toEqual([]);
  });

  it('a CA without ARI is not_supported whether or not its certificate has expired', async () => {
    const client = recordingClient([]);
    const lookup = createAriLookup({ client });
    const expiredSectigo = issuance('04fe', {
      issuer: 'Sectigo',
      issuerDn: 'C=GB, O=Sectigo Limited, CN=Sectigo RSA DV',
      notAfter: new Date(NOW.getTime() - DAY_MS),
    });
    expect(await lookup.aboutIssuance(expiredSectigo, NOW, 2_000, null)).toMatchObject({
      status: 'not_supported',
      ca: null,
    });
    // The expired served leaf of a CA this service does not ask (here: none configured).
    const leaf = await servedLeaf('0402', 100);
    expect(await lookup.aboutLeaf(leaf, NOW, 2_000).answer).toMatchObject({ status: 'not_supported' });
    expect(client.asked).toEqual([]);
  });

  it("nothing is asked or downloaded when the check's budget is (nearly) spent", async () => {
    const client = recordingClient();
    let downloads = 0;
    const lookup = createAriLookup({ client, certificateDer: async () => (downloads++, null) });
    expect(await lookup.aboutIssuance(issuance('04ab'), NOW, 10, null)).toMatchObject({
      status: 'unavailable',
    });
    expect(downloads).toBe(0);
    const der = await leafDer({ serial: '04ac', authorityKeyId: AKI, issuer: R11 });
    expect(await lookup.aboutIssuance(issuance(null, { der }), NOW, -5, null)).toMatchObject({
      status: 'unavailable',
      certId: expectedId('04ac'),
    });
    expect(client.asked).toEqual([]);
  });

  it('a certificate without an AKI gives no CertID: unavailable, not asked', async () => {
    const client = recordingClient();
    const der = await leafDer({ serial: '0402', issuer: R11 });
    const outcome = await createAriLookup({ client }).aboutIssuance(
      issuance(null, { der }),
      NOW,
      2_000,
      null,
    );
    expect(outcome).toMatchObject({ status: 'unavailable', certId: null });
    expect(client.asked).toEqual([]);
  });

  it('needs nothing from the served leaf once CT alone gives the CertID, or when nothing is asked', async () => {
    const lookup = createAriLookup({ client: recordingClient() });
    // CT's serial without a known issuer key: the served leaf could teach it.
    expect(lookup.needsNoLeaf(issuance('04ee'), NOW)).toBe(false);
    // CT's bytes; an expired certificate; a CA without ARI.
    const der = await leafDer({ serial: '04ee', authorityKeyId: AKI, issuer: R11 });
    expect(lookup.needsNoLeaf(issuance('04ee', { der }), NOW)).toBe(true);
    expect(lookup.needsNoLeaf(issuance('04ee', { notAfter: new Date(NOW.getTime() - 1) }), NOW)).toBe(true);
    expect(lookup.needsNoLeaf(issuance('04ee', { issuer: 'Sectigo' }), NOW)).toBe(true);
    // Once a certificate of that intermediate was read, its serial is enough.
    await lookup.aboutIssuance(issuance('04ef', { der }), NOW, 2_000, null);
    expect(lookup.needsNoLeaf(issuance('04ee'), NOW)).toBe(true);
  });
});
