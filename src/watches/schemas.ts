/** The watch answers and inputs as zod schemas: OpenAPI, the MCP tools and tests derive from them. */
import { z } from 'zod';
import { siteHealthResultSchema } from '../checks/site-health/result.ts';
import { timestampSchema } from '../checks/result-common.ts';
import { EVENT_TYPES } from './model.ts';

export { watchInputShape } from './request.ts';

export const watchEventSchema = z.object({
  id: z.string().describe('Unique and stable: the webhook-id of every delivery attempt of this event.'),
  type: z.enum(EVENT_TYPES),
  watch_id: z.string(),
  domain: z.string(),
  at: timestampSchema,
  data: z
    .record(z.string(), z.unknown())
    .describe(
      'watch.alert: { raised, cleared, conditions, result }; watch.created: { conditions, expires_at, interval_s }; watch.check_failed: { failures, reason }; watch.ending and watch.ended: { expires_at, reason? }.',
    ),
});

export const deliveryAttemptSchema = z.object({
  event_id: z.string(),
  attempt: z.number().int(),
  at: timestampSchema,
  status: z.number().int().nullable(),
  error: z.string().nullable(),
});

const watchCommon = {
  watch_id: z.string(),
  domain: z.string(),
  days: z.number().int(),
  created_at: timestampSchema,
  expires_at: timestampSchema,
  interval_s: z.number().int(),
  next_check_at: timestampSchema.nullable(),
  status: z.enum(['active', 'ended', 'cancelled']),
  conditions: z.array(z.string()).describe('The current warning and critical condition codes.'),
  webhook_url: z.string().nullable(),
};

export const watchCreatedSchema = z.object({
  ...watchCommon,
  token: z.string().describe('Bearer token managing this watch; shown only in this answer.'),
  webhook_secret: z
    .string()
    .nullable()
    .describe(
      'Standard Webhooks whsec_ secret verifying deliveries; shown only in this answer; null without webhook_url.',
    ),
  result: siteHealthResultSchema,
  refund: z.string().describe('Plain words: a watch is not refunded.'),
});

export const watchStatusSchema = z.object({
  ...watchCommon,
  last_checked_at: timestampSchema.nullable(),
  last_result: siteHealthResultSchema.nullable(),
  events: z.array(watchEventSchema),
  deliveries: z.array(deliveryAttemptSchema),
});

export const walletListSchema = z.object({
  watches: z
    .array(z.object({ ...watchCommon, last_checked_at: timestampSchema.nullable() }))
    .describe('The signed-in wallet’s watches, newest first; no token or secret.'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.'),
});

export const watchRotatedSchema = z.object({
  watch_id: z.string(),
  token: z.string().optional().describe('The new Bearer token (rotate-token); the old one no longer works.'),
  webhook_secret: z
    .string()
    .optional()
    .describe('The new whsec_ secret (rotate-secret); watch.secret_rotated was signed with the old one.'),
});
