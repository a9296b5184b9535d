/** The CAs whose ACME Renewal Information the service can read (contract: `renewal.ari.ca`). */

export const ACME_CAS = ['letsencrypt', 'google'] as const;
export type AcmeCa = (typeof ACME_CAS)[number];

/** Where one CA's ACME directory (RFC 8555 §7.1.1) is, as configured. */
export interface AcmeDirectory {
  ca: AcmeCa;
  directoryUrl: URL;
}

/** The friendly issuer name (ct/issuer-name.ts) of each of them. */
const CA_ISSUERS: Record<AcmeCa, string> = {
  letsencrypt: "Let's Encrypt",
  google: 'Google Trust Services',
};

/** The CA of a friendly issuer name, or null for a CA outside the list. */
export function acmeCaOf(issuer: string): AcmeCa | null {
  return ACME_CAS.find((ca) => CA_ISSUERS[ca] === issuer) ?? null;
}
