/** The free validate result (docs/checks/validation.md). */
import { z } from 'zod';

export const validateResultSchema = z.object({
  valid: z.boolean(),
  input: z.string().describe('The input as given.'),
  domain: z.string().nullable().describe('ASCII, lower case, no trailing dot; null when invalid.'),
  unicode: z.string().nullable().describe('Unicode form of the domain.'),
  registrable_domain: z.string().nullable(),
  public_suffix: z.string().nullable(),
  is_apex: z.boolean().nullable().describe('True when the domain is its own registrable domain.'),
  reason: z
    .object({ code: z.string(), message: z.string() })
    .optional()
    .describe('Present only when invalid.'),
});
export type ValidateResult = z.infer<typeof validateResultSchema>;
