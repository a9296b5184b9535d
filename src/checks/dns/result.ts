/** The dns result (docs/checks/dns.md). */
import { z } from 'zod';
import { commonResultShape, timestampSchema } from '../result-common.ts';
import { DNS_CHECK_BUDGET_MS } from './budget.ts';

export const spfSchema = z.object({
  record: z.string(),
  valid: z.boolean(),
  lookups: z
    .number()
    .int()
    .describe('DNS-querying terms counted through includes and redirects (RFC 7208 limit 10).'),
  void_lookups: z.number().int().describe('Lookups that returned no answer (RFC 7208 limit 2).'),
  all: z
    .string()
    .nullable()
    .describe('The `all` term with its qualifier (`-all`, `~all`, `?all`, `+all`), or null.'),
  includes: z.array(z.string()),
});

export const dmarcSchema = z.object({
  record: z.string(),
  policy: z.string().nullable(),
  subdomain_policy: z.string().nullable(),
  pct: z.number().nullable(),
  rua: z.array(z.string()),
  found_at: z
    .string()
    .describe('The name the record was found at (`_dmarc.<domain>` or the organizational domain).'),
});

export const sectionErrorSchema = z
  .object({
    error: z.object({
      code: z
        .enum(['servfail', 'timeout'])
        .describe('`servfail`: the resolvers answered SERVFAIL; `timeout`: no answer within the budget.'),
      message: z.string().describe('One plain-English sentence naming the failed lookup.'),
    }),
  })
  .describe(
    'In place of a section whose lookup failed at both resolvers while they answered other questions: a fact about the domain, not missing data. No finding is drawn from the missing data (`dns.lookup_failed` / `caa.lookup_failed` report the failure).',
  );

/** A section, or its lookup failure. */
const orError = <T extends z.ZodType>(schema: T) => z.union([schema, sectionErrorSchema]);

export const caaRecordSchema = z.object({ flags: z.number().int(), tag: z.string(), value: z.string() });

export const caaSchema = z.object({
  records: z.array(caaRecordSchema),
  found_at: z.string().nullable().describe('Where the climb up the name tree found the CAA set (RFC 8659).'),
});

export const dnssecSchema = z.object({
  status: z.enum(['signed', 'unsigned', 'bogus', 'unknown']),
  ad: z.boolean(),
  ds: z.boolean(),
  dnskey: z.boolean(),
});

export const acmeChallengeSchema = z
  .object({
    txt: z.array(z.string()).describe('TXT strings at the name (at the end of its CNAME chain).'),
    cname: z
      .string()
      .nullable()
      .describe('The CNAME target: DNS-01 validation delegated to another zone (e.g. acme-dns).'),
  })
  .describe(
    'What `_acme-challenge.<domain>` holds between validations; null when nothing (the normal state). Finding `dns.acme_challenge_present`.',
  );

export const validationPersistRecordSchema = z.object({
  issuer: z.string().describe('The issuer domain name, normalized (e.g. `letsencrypt.org`).'),
  account_uri: z.string().describe('The ACME account the record authorizes (`accounturi`).'),
  policy: z
    .string()
    .nullable()
    .describe(
      '`wildcard` (any case in the record) extends the validation to subdomains and wildcard certificates. Null when absent, and for any other value, which CAs treat as absent.',
    ),
  persist_until: timestampSchema
    .nullable()
    .describe(
      '`persistUntil`: after it the CA refuses new validations with the record. A value past the RFC 3339 years 0000–9999 is shown at that edge. Null when absent.',
    ),
});

export const dnsResultSchema = z
  .object({
    ...commonResultShape,
    ns: orError(z.array(z.string())),
    a: orError(z.array(z.string())),
    aaaa: orError(z.array(z.string())),
    cname: orError(z.string().nullable()),
    mx: orError(z.array(z.object({ priority: z.number().int(), host: z.string() }))),
    spf: orError(spfSchema.nullable()),
    dmarc: orError(dmarcSchema.nullable()),
    caa: orError(caaSchema),
    dnssec: orError(dnssecSchema),
    mta_sts: orError(z.string().nullable()),
    tls_rpt: orError(z.string().nullable()),
    acme_challenge: orError(acmeChallengeSchema.nullable()),
    validation_persist: orError(
      z
        .array(validationPersistRecordSchema)
        .describe(
          'DNS-PERSIST-01 records at `_validation-persist.<domain>` (draft-ietf-acme-dns-persist), each a standing authorization for one CA account; empty when none. Malformed records are left out and reported as `dns.validation_persist_malformed`; `dns.validation_persist_expiring` when `persistUntil` is past or within 30 days.',
        ),
    ),
  })
  .describe(
    `Each section is reported on its own: when a lookup it needs fails at both resolvers (SERVFAIL or timeout) while the resolvers answer a control query, the section is \`{ error }\` and the others are still reported. When the resolvers themselves fail (the control query fails at both, or they answer with HTTP errors, garbage or REFUSED) there is no result: the check answers 502 and is not charged. The whole check answers within ${DNS_CHECK_BUDGET_MS / 1000} s.`,
  );
export type DnsResult = z.infer<typeof dnsResultSchema>;
/** A section's failure as the result reports it. */
export type SectionError = z.infer<typeof sectionErrorSchema>;
