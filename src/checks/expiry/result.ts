/** The expiry result (docs/checks/expiry.md). */
import { z } from 'zod';
import { commonResultShape, timestampSchema } from '../result-common.ts';

export const expiryResultSchema = z.object({
  ...commonResultShape,
  registered: z.boolean().describe('False when the registry answered 404 (not registered).'),
  registrar: z.object({ name: z.string().nullable(), iana_id: z.string().nullable() }),
  registered_at: timestampSchema.nullable(),
  expires_at: timestampSchema.nullable(),
  updated_at: timestampSchema
    .nullable()
    .describe(
      'The `last changed` event; without one, the `last update of RDAP database` event (some registrars, MarkMonitor among them, may send only that). Null when neither is given.',
    ),
  days_left: z.number().nullable(),
  status: z.array(z.string()).describe('EPP status codes in camelCase, e.g. `clientTransferProhibited`.'),
  status_rdap: z.array(z.string()).describe('Status values as the registry wrote them.'),
  nameservers: z.array(z.string()),
  dnssec_delegated: z.boolean(),
  rdap_server: z.string(),
});
export type ExpiryResult = z.infer<typeof expiryResultSchema>;
