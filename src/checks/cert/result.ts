/** The cert result (contract §3 "cert"). */
import { z } from 'zod';
import { commonResultShape, timestampSchema } from '../result-common.ts';

export const stallStatusSchema = z.enum(['ok', 'watch', 'stalled', 'unknown']);

export const stallSchema = z.object({
  status: stallStatusSchema,
  reason: z.string().describe('One sentence explaining the verdict.'),
  overdue_days: z
    .number()
    .nullable()
    .describe('Days past the expected renewal; null when not overdue or unknown.'),
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
  stall: stallSchema,
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

export const certResultSchema = z.object({
  ...commonResultShape,
  certificate: certificateSchema.nullable(),
  renewal: renewalSchema,
  history: z.array(historyEntrySchema).max(10),
  live_probe: liveProbeSchema,
  ct_source: z.enum(['crt.sh', 'certspotter']),
});
export type CertResult = z.infer<typeof certResultSchema>;

/** The live HTTPS probe's verdict: pass/fail only (the served certificate is not reported). */
export type LiveProbe = z.infer<typeof probeVerdictSchema>;
