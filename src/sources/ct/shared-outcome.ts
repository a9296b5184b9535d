/**
 * What a CT answer read back from the shared tier must be before it is used: a successful lookup
 * whose issuances have real dates, names and bytes where the revived JSON should hold them. An
 * entry another version wrote, one cut short or one tampered with is refused (a miss, not a 500).
 */
import { z } from 'zod';
import type { CtLookupOutcome } from './outcome.ts';

const validDate = z.date().refine((date) => !Number.isNaN(date.getTime()));

const issuanceSchema = z.object({
  issuer: z.string(),
  issuerDn: z.string(),
  serial: z.string().nullable(),
  notBefore: validDate,
  notAfter: validDate,
  names: z.array(z.string()),
  loggedAt: validDate.nullable(),
  crtshId: z.string().nullable(),
  der: z.instanceof(Uint8Array).nullable(),
});

const sharedOutcomeSchema = z.object({
  result: z.object({
    ok: z.literal(true),
    value: z.object({ issuances: z.array(issuanceSchema), source: z.enum(['crt.sh', 'certspotter']) }),
  }),
  calls: z.array(
    z.object({ name: z.string(), url: z.string(), ok: z.boolean(), ms: z.number(), cached: z.boolean() }),
  ),
});

/** Whether `value` (revived from the shared tier) is a whole, successful CT lookup outcome. */
export function isSharedCtOutcome(value: unknown): value is CtLookupOutcome {
  return sharedOutcomeSchema.safeParse(value).success;
}
