/**
 * One illustrative answer per watch payment, published as the bazaar `output.example` of its 402
 * (catalogues read an output only with an example). The site-health result is the check's own example.
 */
import type { z } from 'zod';
import { outputExampleFor } from '../payments/server/output-examples.ts';
import type { watchCreatedSchema, watchStatusSchema } from './schemas.ts';

const result = outputExampleFor('v1_site_health') as z.infer<typeof watchCreatedSchema>['result'];

const watch = {
  watch_id: 'w_5f1c2a9e8b7d4c3a',
  domain: 'example.com',
  days: 30,
  created_at: '2026-11-22T10:00:00Z',
  expires_at: '2026-12-22T10:00:00Z',
  interval_s: 21_600,
  next_check_at: '2026-11-22T16:00:00Z',
  status: 'active',
  webhook_url: 'https://hooks.example.com/watch',
} as const satisfies Partial<z.infer<typeof watchCreatedSchema>>;

export const WATCH_CREATED_EXAMPLE: z.infer<typeof watchCreatedSchema> = {
  ...watch,
  conditions: [],
  token: 'wt_…',
  webhook_secret: 'whsec_…',
  result,
  refund: 'A watch is not refunded.',
};

export const WATCH_EXTENDED_EXAMPLE: z.infer<typeof watchStatusSchema> = {
  ...watch,
  conditions: [],
  days: 60,
  expires_at: '2027-01-21T10:00:00Z',
  last_checked_at: '2026-11-22T10:00:00Z',
  last_result: result,
  events: [],
  deliveries: [],
};
