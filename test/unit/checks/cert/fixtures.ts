/** Issuance builders for the pure cert analysis tests, dated against one fixed "now". */
import type { Issuance } from '../../../../src/sources/ct/issuance.ts';

export const NOW = new Date('2026-10-20T12:00:00Z');
const DAY_MS = 86_400_000;

export const LE = { issuer: "Let's Encrypt", issuerDn: "C=US, O=Let's Encrypt, CN=R11" };
export const SECTIGO = { issuer: 'Sectigo', issuerDn: 'C=GB, O=Sectigo Limited, CN=Sectigo RSA DV' };

/** One issuance `daysAgo` before NOW, notAfter = notBefore + lifetime − 1 s. */
export function issuance(options: {
  daysAgo: number;
  names?: string[];
  lifetimeDays?: number;
  ca?: { issuer: string; issuerDn: string };
}): Issuance {
  const notBefore = new Date(NOW.getTime() - options.daysAgo * DAY_MS);
  return {
    ...(options.ca ?? LE),
    serial: `04${Math.round(options.daysAgo * 1000)
      .toString(16)
      .padStart(8, '0')}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (options.lifetimeDays ?? 90) * DAY_MS - 1000),
    names: options.names ?? ['shop.com', 'www.shop.com'],
    loggedAt: new Date(notBefore.getTime() + 3_600_000),
    crtshId: null,
    der: null,
  };
}

/** Issuances at the given ages (days ago), otherwise alike. */
export function history(
  ages: number[],
  options: Omit<Parameters<typeof issuance>[0], 'daysAgo'> = {},
): Issuance[] {
  return ages.map((daysAgo) => issuance({ ...options, daysAgo }));
}
