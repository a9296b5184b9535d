/**
 * Fields every check result carries, as zod schemas so that the
 * OpenAPI document, the MCP output schemas and the tests all describe the same shape.
 */
import { z } from 'zod';

export const DISCLAIMER = 'Results are data, not guarantees.';

export const severitySchema = z.enum(['info', 'warning', 'critical']);
export type Severity = z.infer<typeof severitySchema>;

export const findingSchema = z
  .object({
    code: z.string().describe('Stable machine-readable code, e.g. `spf.too_many_lookups`.'),
    severity: severitySchema,
    message: z.string().describe('One plain-English sentence.'),
    evidence: z.string().optional().describe('The record text or value that caused the finding.'),
  })
  .describe('A plain-English finding an agent can act on.');
export type Finding = z.infer<typeof findingSchema>;

export const sourceReportSchema = z.object({
  name: z.string().describe('Upstream name, e.g. `crt.sh`, `doh`, `rdap`, `probe`.'),
  url: z.string().describe('The upstream base URL consulted.'),
  ok: z.boolean(),
  ms: z.number().describe('Wall time of the upstream call in milliseconds (0 when cached).'),
  cached: z.boolean(),
  skipped: z
    .literal(true)
    .optional()
    .describe(
      'Present when the source was not asked: it failed for several domains and for a control question, and is rested for a cool-down.',
    ),
});
export type SourceReport = z.infer<typeof sourceReportSchema>;

export const timestampSchema = z.string().describe('RFC 3339 UTC time, e.g. `2026-11-22T10:00:00Z`.');

/** Shape shared by cert, dns and expiry results. */
export const commonResultShape = {
  domain: z.string().describe('The normalized ASCII domain checked.'),
  checked_at: timestampSchema,
  sources: z.array(sourceReportSchema),
  findings: z.array(findingSchema),
  disclaimer: z.literal(DISCLAIMER),
};

/** RFC 3339 UTC with whole seconds, as the contract's examples show. */
export function toTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
