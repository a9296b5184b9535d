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
      "RDAP's `last changed` event: the domain's last change. Null when the answer has none (the `last update of RDAP database` event is never taken for it: it is the server's database refresh, RFC 9083 §4.5).",
    ),
  rdap_updated_at: timestampSchema
    .nullable()
    .describe(
      "RDAP's `last update of RDAP database` event: when the answering server's database was last refreshed (RFC 9083 §4.5), not a change of the domain; null when not given.",
    ),
  days_left: z.number().nullable(),
  status: z.array(z.string()).describe('EPP status codes in camelCase, e.g. `clientTransferProhibited`.'),
  status_rdap: z.array(z.string()).describe('Status values as the registry wrote them.'),
  nameservers: z.array(z.string()),
  dnssec_delegated: z.boolean(),
  rdap_server: z.string(),
});
export type ExpiryResult = z.infer<typeof expiryResultSchema>;
