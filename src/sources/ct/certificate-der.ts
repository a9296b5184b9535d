/**
 * The bytes of a CT issuance's certificate, from where they are cheapest: the DER Cert Spotter sent
 * with the issuance, else crt.sh's download `?d=<id>` (PEM). A certificate never
 * changes, so a download is kept without end in a bounded LRU, and concurrent asks for one id share
 * one download.
 */
import { boundedFetch, type FetchLike } from '../bounded-fetch.ts';
import { createSourceCache } from '../cache.ts';
import { fail, type SourceResult, succeed } from '../failure.ts';
import { CRTSH_SOURCE } from './crtsh.ts';
import type { Issuance } from './issuance.ts';
import { pemCertificateDer, readCertificate } from './x509.ts';

/** Budget for one `?d=` download, in milliseconds. */
export const CRTSH_DER_TIMEOUT_MS = 2_000;
/** Largest `?d=` body accepted, in bytes: a leaf's PEM is 2–8 KB, even with a hundred names. */
export const CRTSH_DER_MAX_BYTES = 32 * 1024;
/** Most certificates kept (a few MiB as leaves go, 24 MiB at most). */
export const CERTIFICATE_DER_CACHE_MAX = 1_000;

/** The DER of `issuance`'s certificate (or precertificate), or null when no source has it. Never throws. */
export type CertificateDer = (issuance: Issuance) => Promise<Uint8Array | null>;

export interface CertificateDerOptions {
  fetch: FetchLike;
  /** crt.sh base URL (`CRTSH_URL`). */
  crtshUrl: URL;
  /** Default `CRTSH_DER_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Default `CERTIFICATE_DER_CACHE_MAX`. */
  maxEntries?: number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

/** crt.sh's download URL for certificate `id`: `?d=<id>`. */
export function crtshDownloadUrl(baseUrl: URL, id: string): URL {
  const url = new URL(baseUrl.href.endsWith('/') ? baseUrl.href : `${baseUrl.href}/`);
  url.searchParams.set('d', id);
  return url;
}

export function createCertificateDer(options: CertificateDerOptions): CertificateDer {
  const cache = createSourceCache<Uint8Array>({
    max: options.maxEntries ?? CERTIFICATE_DER_CACHE_MAX,
    ttlMs: Number.POSITIVE_INFINITY,
    now: options.now,
  });
  const timeoutMs = options.timeoutMs ?? CRTSH_DER_TIMEOUT_MS;
  return async function certificateDer(issuance) {
    if (issuance.der) return issuance.der;
    const id = issuance.crtshId;
    if (id === null || !/^\d+$/.test(id)) return null;
    try {
      const { result } = await cache.get(id, () => download(id, issuance.serial));
      return result.ok ? result.value : null;
    } catch {
      return null;
    }
  };

  async function download(id: string, serial: string | null): Promise<SourceResult<Uint8Array>> {
    const response = await boundedFetch(crtshDownloadUrl(options.crtshUrl, id), {
      source: CRTSH_SOURCE,
      fetch: options.fetch,
      timeoutMs,
      maxBytes: CRTSH_DER_MAX_BYTES,
      accept: ['application/pkix-cert'],
    });
    if (!response.ok) return response;
    const der = pemCertificateDer(new TextDecoder().decode(response.value.body));
    const facts = der && readCertificate(der);
    // Another certificate than the one asked for would mislead whoever reads it: refuse it.
    if (!der || !facts || (serial !== null && facts.serial !== serial)) {
      return fail({ code: 'malformed', source: CRTSH_SOURCE, detail: `crt.sh sent no certificate ${id}` });
    }
    return succeed(der);
  }
}
