/** The dns result (contract §3 "dns"). */
import { z } from 'zod';
import { commonResultShape } from '../result-common.ts';

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

export const caaRecordSchema = z.object({ flags: z.number().int(), tag: z.string(), value: z.string() });

export const dnsResultSchema = z.object({
  ...commonResultShape,
  ns: z.array(z.string()),
  a: z.array(z.string()),
  aaaa: z.array(z.string()),
  cname: z.string().nullable(),
  mx: z.array(z.object({ priority: z.number().int(), host: z.string() })),
  spf: spfSchema.nullable(),
  dmarc: dmarcSchema.nullable(),
  caa: z.object({
    records: z.array(caaRecordSchema),
    found_at: z
      .string()
      .nullable()
      .describe('Where the climb up the name tree found the CAA set (RFC 8659).'),
  }),
  dnssec: z.object({
    status: z.enum(['signed', 'unsigned', 'bogus', 'unknown']),
    ad: z.boolean(),
    ds: z.boolean(),
    dnskey: z.boolean(),
  }),
  mta_sts: z.string().nullable(),
  tls_rpt: z.string().nullable(),
});
export type DnsResult = z.infer<typeof dnsResultSchema>;
