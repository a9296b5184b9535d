/**
 * RDAP answers as other instances share them (`SharedAnswers`, namespace `rdap`): written as JSON,
 * read back with URLs and dates revived, and used only when the whole answer has the shape a lookup
 * gives. An entry another version wrote, one cut short or one tampered with is a miss, not a 500.
 */
import { z } from 'zod';
import type { SharedAnswers, SharedTier } from '../cache.ts';
import type { RegistryAnswer } from './lookup.ts';

const URL_FIELDS = new Set(['server', 'referral']);
const DATE_FIELDS = new Set(['registeredAt', 'expiresAt', 'updatedAt', 'rdapUpdatedAt']);

/** An http(s) URL without credentials, as the bootstrap and the registration parser leave them. */
const webUrl = z
  .instanceof(URL)
  .refine((url) => (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password);
const validDate = z.date().refine((date) => !Number.isNaN(date.getTime()));
const nullableText = z.string().nullable();

const registrationSchema = z.object({
  ldhName: nullableText,
  registrar: z.object({ name: nullableText, ianaId: nullableText }),
  registeredAt: validDate.nullable(),
  expiresAt: validDate.nullable(),
  updatedAt: validDate.nullable(),
  // Required: an entry of a version that took `updatedAt` from the database refresh is a miss.
  rdapUpdatedAt: validDate.nullable(),
  status: z.array(z.string()),
  nameservers: z.array(z.string()),
  delegationSigned: z.boolean(),
  referral: webUrl.nullable(),
});

const sourceCallSchema = z.object({
  name: z.string(),
  url: z.string(),
  ok: z.boolean(),
  ms: z.number(),
  cached: z.boolean(),
});

const sharedAnswerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('not_registered'), server: webUrl, sources: z.array(sourceCallSchema) }),
  z.object({
    kind: z.literal('registered'),
    server: webUrl,
    registration: registrationSchema,
    sources: z.array(sourceCallSchema),
  }),
]);

/** The shared tier of RDAP answers in `answers`. */
export function rdapSharedTier(answers: SharedAnswers): SharedTier<RegistryAnswer> {
  return {
    answers,
    namespace: 'rdap',
    revive(key, value) {
      if (typeof value !== 'string') return value;
      if (URL_FIELDS.has(key)) return URL.canParse(value) ? new URL(value) : value;
      return DATE_FIELDS.has(key) ? new Date(value) : value;
    },
    accept: (value): value is RegistryAnswer => sharedAnswerSchema.safeParse(value).success,
  };
}
