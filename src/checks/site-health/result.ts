/** The site-health result (docs/checks/site-health.md). */
import { z } from 'zod';
import { certResultSchema, stallSchema } from '../cert/result.ts';
import { dnsResultSchema } from '../dns/result.ts';
import { expiryResultSchema } from '../expiry/result.ts';
import { DISCLAIMER, findingSchema, sourceReportSchema, timestampSchema } from '../result-common.ts';

export const sectionErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});

export const lifetimeNoteSchema = z.object({
  applies: z
    .boolean()
    .describe(
      "Whether the observed renewal cadence would break under 64-day certificates: false when renewals already follow the CA's ARI window (see `follows_ari_window`).",
    ),
  follows_ari_window: z
    .boolean()
    .nullable()
    .describe(
      "Whether the site's renewals already follow the CA's ARI window (the cert result's `renewal.follows_ari_window`); null when unknown.",
    ),
  summary: z.string(),
  default_64_day_from: z.literal('2027-02-10'),
  default_45_day_from: z.literal('2028-02-16'),
  staging_64_day_from: z.literal('2026-10-14'),
  cabf_max_100_days_from: z
    .literal('2027-03-15')
    .describe('The CA/Browser Forum maximum certificate lifetime is 100 days from this date.'),
  cabf_max_47_days_from: z
    .literal('2029-03-15')
    .describe('The CA/Browser Forum maximum certificate lifetime is 47 days from this date.'),
  recommendation: z.string(),
  facts: z.array(z.string()),
});
export type LifetimeNote = z.infer<typeof lifetimeNoteSchema>;

export const siteHealthResultSchema = z.object({
  domain: z.string(),
  checked_at: timestampSchema,
  summary: z.object({
    status: z.enum(['ok', 'warning', 'critical']),
    headline: z.string().describe('One sentence an agent can show a person.'),
    counts: z.object({ critical: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  }),
  cert: z.union([certResultSchema, sectionErrorSchema]),
  dns: z.union([dnsResultSchema, sectionErrorSchema]),
  expiry: z.union([expiryResultSchema, sectionErrorSchema]),
  partial: z.boolean(),
  renewal_stall: stallSchema.nullable(),
  lifetime_note: lifetimeNoteSchema,
  sources: z.array(sourceReportSchema),
  findings: z
    .array(findingSchema)
    .describe('Cross-check findings that need more than one section (e.g. CAA vs the CA seen in CT).'),
  disclaimer: z.literal(DISCLAIMER),
});
export type SiteHealthResult = z.infer<typeof siteHealthResultSchema>;
