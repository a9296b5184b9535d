/** The cert result (docs/checks/cert.md). */
import { z } from 'zod';
import { ACME_CAS } from '../../sources/ari/acme-cas.ts';
import { commonResultShape, timestampSchema } from '../result-common.ts';

export const stallStatusSchema = z.enum(['ok', 'watch', 'stalled', 'unknown']);

export const stallSchema = z.object({
  status: stallStatusSchema,
  reason: z.string().describe('One sentence explaining the verdict.'),
  overdue_days: z
    .number()
    .nullable()
    .describe(
      "Days past the expected renewal (with basis `ari`: past the end of the CA's window); null when not overdue or unknown.",
    ),
  basis: z
    .enum(['ari', 'cadence', 'none'])
    .describe(
      "Where the verdict comes from: `ari` the CA's renewal window (ACME Renewal Information, RFC 9773), `cadence` the renewal history in CT, `none` when the status is `unknown`.",
    ),
});
export type Stall = z.infer<typeof stallSchema>;

export const certificateSchema = z.object({
  issuer: z
    .string()
    .describe(
      "Friendly issuer name, one per CA whichever CT source answered (from the issuer DN's organisation), e.g. `Let's Encrypt`, `DigiCert`, `Sectigo`.",
    ),
  issuer_dn: z.string(),
  serial: z
    .string()
    .nullable()
    .describe(
      'Lower-case hex serial number; null when the CT source does not report it (Cert Spotter without the certificate bytes).',
    ),
  not_before: timestampSchema,
  not_after: timestampSchema,
  days_left: z.number().describe('Whole days until not_after; negative once expired.'),
  lifetime_days: z.number(),
  percent_used: z.number().describe('Share of the lifetime elapsed, 0–100 (capped).'),
  names: z
    .array(z.string())
    .describe('DNS names of the certificate known to CT (never e-mail addresses or organisation names).'),
  wildcard: z.boolean().describe('True when the domain is covered by a wildcard name.'),
});

export const ariStatusSchema = z.enum(['ok', 'not_supported', 'not_found', 'unavailable']);

export const ariSchema = z.object({
  status: ariStatusSchema.describe(
    '`ok` the CA answered with a window; `not_supported` the issuing CA publishes no ARI (whether or not the certificate has expired); `not_found` the CA does not know the certificate (or it has expired: expired certificates are not asked); `unavailable` no answer this time (timeout, 429, 5xx, an invalid answer, or the CertID could not be computed). Anything but `ok` leaves the verdict to the cadence in CT.',
  ),
  ca: z.enum(ACME_CAS).nullable().describe('The issuing CA, when it is one that may publish ARI.'),
  cert_id: z
    .string()
    .nullable()
    .describe(
      'RFC 9773 CertID of the certificate asked about: base64url(AKI keyIdentifier).base64url(serial); null when it could not be computed.',
    ),
  window: z
    .object({ start: timestampSchema, end: timestampSchema })
    .nullable()
    .describe("The CA's suggested renewal window; null unless `status` is `ok`."),
  explanation_url: z
    .string()
    .nullable()
    .describe(
      'A page where the CA explains its window: its usual strategy, or an incident or a drill (RFC 9773 §4.2); shown, never alarmed by itself (`cert.ca_requested_early_renewal` needs a window that opens early). Null when none, or when the CA sent no usable http(s) URL of at most 2,048 characters (the window is kept).',
    ),
  checked_at: timestampSchema
    .nullable()
    .describe('When the CA gave this answer (answers are kept for its Retry-After); null when not asked.'),
});
export type AriField = z.infer<typeof ariSchema>;

export const renewalSchema = z.object({
  issuances_seen: z.number().int(),
  cadence_days: z
    .number()
    .nullable()
    .describe('Median days between consecutive issuances; null with fewer than two.'),
  renews_at_percent: z
    .number()
    .nullable()
    .describe("Median point in the previous certificate's lifetime at which the next was issued, 0–100."),
  expected_renewal_at: timestampSchema.nullable(),
  follows_ari_window: z
    .boolean()
    .nullable()
    .describe(
      "Whether the renewals follow the CA's ARI window: each landed inside the window (at the same share of the lifetime as the current certificate's) at varying times, as ARI clients renew, rather than on a fixed day. Such renewals move with the lifetime, so 64-day certificates will not break them. Null when the CA gave no window (or an early one) or CT holds fewer than two renewals.",
    ),
  renew_by: timestampSchema
    .nullable()
    .describe(
      "When the certificate should be renewed by: the end of the CA's ARI window when the CA answered, else the end of the cadence estimate's grace period; null without a certificate.",
    ),
  stall: stallSchema,
  ari: ariSchema
    .nullable()
    .describe(
      'ACME Renewal Information (RFC 9773) for the judged certificate (see `judged`), from the CA that issued it; null when ARI is turned off or there is no certificate to ask about.',
    ),
});

export const historyEntrySchema = z.object({
  issuer: z.string(),
  serial: z.string().nullable(),
  not_before: timestampSchema,
  not_after: timestampSchema,
});

/** The probe's own verdict: pass/fail only (the served certificate is not reported). */
export const probeVerdictSchema = z.object({
  ok: z.boolean(),
  http_status: z.number().int().nullable(),
  ms: z.number(),
  error: z
    .string()
    .nullable()
    .describe(
      'Error kind when the probe failed, e.g. `timeout`, `tls`, `refused`, `blocked_address`, `no_address`.',
    ),
});

export const liveProbeSchema = probeVerdictSchema.extend({
  serves_newest: z
    .boolean()
    .nullable()
    .describe(
      'True when the served leaf is the newest trusted certificate CT holds for the name; false when CT holds a newer one issued more than 6 hours ago (renewed but not deployed, finding `cert.renewed_not_deployed`); null when it cannot be known (on the Cloudflare Workers deployment, which cannot read the served certificate; a probe that read no certificate; a newer certificate still within the 6 hours; a served certificate CT does not show).',
    ),
});

export const judgedSchema = z
  .object({
    source: z
      .enum(['served', 'ct_newest'])
      .describe(
        "`served`: `certificate`, `days_left` and the expiry findings (and a watch's `cert.lifetime_low`) describe the certificate the site serves, read by the probe whether or not it verified (from CT's row when CT holds it, else from the certificate itself: CT lag, a private CA); `renewal` is about its CA's newest certificate for the name (the served one, or `newer_certificate`). `ct_newest`: about CT's newest trusted certificate for the name, because the served one is not known (on Cloudflare Workers, which cannot read it; a probe whose TLS handshake did not complete).",
      ),
    reason: z.string().describe('One sentence saying which certificate the verdict is about, and why.'),
    served_chain: z
      .enum(['verified', 'refused', 'not_read'])
      .describe(
        '(new, 2026-11-28) The chain the site served: `verified` (Node verified chain and name), `refused` (Node refused it: expired, untrusted, wrong name; read for its dates and names only, and judged: `cert.expired`, `cert.chain_expired`, `cert.untrusted`, `cert.name_mismatch` … instead of `probe.failed`), `not_read` (no handshake completed: refused, reset, timeout, no TLS; or the Worker, which cannot read it).',
      ),
    unjudged: z
      .array(z.string())
      .describe(
        "(new, 2026-11-28) Finding codes (and the watch condition `cert.lifetime_low`) this result could not judge, so their absence says nothing: the served-chain codes when the chain was not read, the served certificate's expiry codes too when a Node probe read no chain, `cert.fixed_renewal_day` when Cert Spotter (unexpired certificates only) answered instead of crt.sh. A watch carries such conditions over.",
      ),
  })
  .describe('Which certificate the verdict is about (new, 2026-11).');
export type JudgedField = z.infer<typeof judgedSchema>;

export const otherCaSchema = z
  .object({
    issuer: z.string(),
    issuer_dn: z.string(),
    serial: z.string().nullable(),
    not_before: timestampSchema,
    not_after: timestampSchema,
    days_left: z.number().describe('Whole days until not_after; negative once expired.'),
    names: z.array(z.string()),
    relation: z
      .enum(['backup', 'move_not_deployed'])
      .describe(
        "`backup`: CT has held this CA's certificates for the name side by side with the served CA's (since before the served certificate was issued, or with it): a CDN's backup or another endpoint's certificate. `move_not_deployed`: this CA first issued for the name after the served certificate, which the site still serves: a move to it not deployed yet (a newly added backup looks the same from outside).",
      ),
    reason: z.string().describe('One sentence on what the certificate is taken for.'),
  })
  .nullable()
  .describe(
    "CT's newest trusted certificate of another CA, newer than the judged certificate, which the site does not serve (new, 2026-11): reported beside the verdict, never judged in its place. Null when there is none, or when the served certificate is not known (`judged.source` `ct_newest`).",
  );
export type OtherCaField = NonNullable<z.infer<typeof otherCaSchema>>;

export const certResultSchema = z.object({
  ...commonResultShape,
  certificate: certificateSchema
    .nullable()
    .describe(
      'The judged certificate (see `judged`): the one the site serves where it is known (even when CT does not hold it yet), else the newest trusted CT issuance covering the domain; null when there is neither.',
    ),
  judged: judgedSchema,
  newer_certificate: certificateSchema
    .nullable()
    .describe(
      "(new, 2026-11-28) A newer certificate of the served certificate's own CA in CT, when the site serves an older one: its renewal, deployed or not (`live_probe.serves_newest`). Null when the site serves its CA's newest, or the served certificate is not known.",
    ),
  other_ca_certificate: otherCaSchema,
  renewal: renewalSchema,
  history: z.array(historyEntrySchema).max(10),
  live_probe: liveProbeSchema,
  ct_source: z.enum(['crt.sh', 'certspotter']),
});
export type CertResult = z.infer<typeof certResultSchema>;

/** The live HTTPS probe's verdict: pass/fail only (the served certificate is not reported). */
export type LiveProbe = z.infer<typeof probeVerdictSchema>;
