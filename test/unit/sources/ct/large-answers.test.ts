import { describe, expect, it } from 'vitest';
import { CERTSPOTTER_MAX_BYTES, fetchCertspotterIssuances } from '../../../../src/sources/ct/certspotter.ts';
import { CRTSH_MAX_BYTES, fetchCrtshIssuances } from '../../../../src/sources/ct/crtsh.ts';
import { NAMES_PER_SLICE } from '../../../../src/sources/ct/issuance.ts';
import { SLICE_CHARS } from '../../../../src/sources/json-array-slices.ts';
import { turnCounter } from '../../../support/event-loop-turns.ts';

/** A fetch answering every URL with `body` as JSON, in one piece (so no network read interleaves). */
const answering = (body: string) => async () =>
  new Response(body, { headers: { 'content-type': 'application/json' } });

/**
 * crt.sh's answer at its cap: `rows` rows of one serial (a precertificate and its certificate
 * logged again and again) each with a distinct name, padded to just under 5 MiB.
 */
function oneSerialManyNames(rows: number): string {
  const pad = 'x'.repeat(950);
  const list = Array.from({ length: rows }, (_, index) => ({
    issuer_ca_id: 295_815,
    issuer_name: `C=US, O=Let's Encrypt, CN=R11`,
    common_name: 'big-answer.com',
    name_value: `host-${index}.big-answer.com\nbig-answer.com\nhostmaster-${pad}@big-answer.com`,
    id: 15_000_000_000 + index,
    entry_timestamp: `2026-10-${String(1 + (index % 28)).padStart(2, '0')}T08:00:00.123`,
    not_before: '2026-10-01T07:00:00',
    not_after: '2026-12-30T07:00:00',
    serial_number: '0400ab12cd',
  }));
  return JSON.stringify(list);
}

describe('CT answers at their size caps', () => {
  it('a 5 MiB crt.sh answer of 4,000 rows of one serial: one issuance, read in slices', async () => {
    const body = oneSerialManyNames(4_000);
    expect(body.length).toBeGreaterThan(4.5 * 1024 * 1024);
    expect(body.length).toBeLessThan(CRTSH_MAX_BYTES);
    const turns = turnCounter();
    const result = await fetchCrtshIssuances('big-answer.com', {
      fetch: answering(body),
      baseUrl: new URL('https://crt.sh/'),
      timeoutMs: 60_000,
    });
    turns.stop();
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(1);
    const [issuance] = result.value;
    // Every distinct DNS name once, sorted; the e-mail identities are not names.
    expect(issuance?.names).toHaveLength(4_001);
    expect(issuance?.names).toEqual([...(issuance?.names ?? [])].sort());
    expect(issuance?.serial).toBe('0400ab12cd');
    expect(issuance?.crtshId).toBe(String(15_000_000_000 + 3_999));
    expect(issuance?.loggedAt?.toISOString()).toBe('2026-10-01T08:00:00.123Z');
    // Other callbacks ran at least once per slice of the text (an apex: one search, no wildcard).
    expect(turns.now()).toBeGreaterThanOrEqual(Math.floor(body.length / SLICE_CHARS));
  });

  it('a 2 MiB Cert Spotter page is read in slices too', async () => {
    const der = 'A'.repeat(20_000);
    const page = JSON.stringify(
      Array.from({ length: 100 }, (_, index) => ({
        id: String(1_000 + index),
        tbs_sha256: 'aa',
        cert_sha256: 'bb',
        dns_names: ['big-answer.com'],
        pubkey_sha256: 'cc',
        issuer: { pubkey_sha256: 'dd', name: "C=US, O=Let's Encrypt, CN=R11" },
        not_before: '2026-10-01T07:00:00Z',
        not_after: '2026-12-30T07:00:00Z',
        cert_der: der,
      })),
    );
    let pages = 0;
    const turns = turnCounter();
    const result = await fetchCertspotterIssuances('big-answer.com', {
      fetch: async () =>
        new Response(pages++ === 0 ? page : '[]', { headers: { 'content-type': 'application/json' } }),
      baseUrl: new URL('https://api.certspotter.com/'),
      timeoutMs: 60_000,
    });
    turns.stop();
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(100);
    expect(page.length).toBeLessThan(CERTSPOTTER_MAX_BYTES);
    // A slice ends at the first row boundary past 64 Ki characters: over 20 KB rows, 3–4 rows.
    expect(turns.now()).toBeGreaterThanOrEqual(Math.floor(page.length / (SLICE_CHARS + der.length)));
  });

  it('Cert Spotter pages full of names: the names are normalized in slices, across pages', async () => {
    const perIssuance = 800;
    const pageOf = (page: number) =>
      JSON.stringify(
        Array.from({ length: 100 }, (_, index) => ({
          id: String(page * 100 + index + 1),
          tbs_sha256: 'aa',
          cert_sha256: 'bb',
          dns_names: [
            'big-answer.com',
            ...Array.from({ length: perIssuance }, (_, name) => `H${name}-${index}.Big-Answer.com`),
          ],
          pubkey_sha256: 'cc',
          issuer: { pubkey_sha256: 'dd', name: "C=US, O=Let's Encrypt, CN=R11" },
          not_before: `2026-10-${String(1 + page).padStart(2, '0')}T07:00:00Z`,
          not_after: '2026-12-30T07:00:00Z',
        })),
      );
    const pages = [pageOf(0), pageOf(1), '[]'];
    let asked = 0;
    const turns = turnCounter();
    const result = await fetchCertspotterIssuances('big-answer.com', {
      fetch: async () =>
        new Response(pages[asked++] ?? '[]', { headers: { 'content-type': 'application/json' } }),
      baseUrl: new URL('https://api.certspotter.com/'),
      timeoutMs: 60_000,
    });
    turns.stop();
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(200);
    // Newest first: the second page's issuances, then the first's.
    expect(result.value[0]?.notBefore.toISOString()).toBe('2026-10-02T07:00:00.000Z');
    expect(result.value[199]?.notBefore.toISOString()).toBe('2026-10-01T07:00:00.000Z');
    const names = result.value[0]?.names ?? [];
    expect(names).toHaveLength(perIssuance + 1);
    expect(names).toEqual([...names].sort());
    expect(names.every((name) => name === name.toLowerCase())).toBe(true);
    // Other callbacks ran at least once per slice of the text and once per slice of the 160,000 names.
    const text = (pages[0]?.length ?? 0) + (pages[1]?.length ?? 0);
    const row = (pages[0]?.length ?? 0) / 100;
    expect(turns.now()).toBeGreaterThanOrEqual(
      Math.floor(text / (SLICE_CHARS + row)) + Math.floor((200 * (perIssuance + 1)) / NAMES_PER_SLICE),
    );
  });
});
