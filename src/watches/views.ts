/** A watch as the API shows it (contract field names, RFC 3339 times): the 201 and the status answer. */
import type { z } from 'zod';
import type { DeliveryAttempt } from './delivery.ts';
import { rfc3339, type WatchEvent, type WatchRecord } from './model.ts';
import type { watchCreatedSchema, watchStatusSchema } from './schemas.ts';
import type { WatchSecrets } from './secrets.ts';

/** Said in the 201, in words a person reads. */
export const NO_REFUND =
  'This watch is paid for its whole period: there is no refund, whether it is cancelled early or its domain stops being worth watching.';

function common(watch: WatchRecord) {
  return {
    watch_id: watch.id,
    domain: watch.domain,
    days: watch.days,
    created_at: rfc3339(watch.createdAt),
    expires_at: rfc3339(watch.expiresAt),
    interval_s: watch.intervalS,
    next_check_at:
      watch.status === 'active' || watch.status === 'pending' ? rfc3339(watch.nextCheckAt) : null,
    // A pending watch is answered only once its payment settled, and is active by then.
    status: watch.status === 'pending' ? ('active' as const) : watch.status,
    conditions: watch.conditions,
    webhook_url: watch.webhookUrl,
  };
}

export async function createdView(
  watch: WatchRecord,
  secrets: WatchSecrets,
): Promise<z.infer<typeof watchCreatedSchema>> {
  if (!watch.lastResult) throw new Error(`watch ${watch.id} has no result`);
  return {
    ...common(watch),
    token: await secrets.token(watch.id),
    webhook_secret: watch.webhookUrl === null ? null : await secrets.webhookSecret(watch.id),
    result: watch.lastResult,
    refund: NO_REFUND,
  };
}

export function statusView(
  watch: WatchRecord,
  events: WatchEvent[],
  attempts: DeliveryAttempt[],
): z.infer<typeof watchStatusSchema> {
  return {
    ...common(watch),
    last_checked_at: watch.lastCheckedAt === null ? null : rfc3339(watch.lastCheckedAt),
    last_result: watch.lastResult,
    events,
    deliveries: attempts,
  };
}

/** The signed-in wallet's watches (`GET /v1/watches`): each without its history or secrets. */
export function walletListView(watches: WatchRecord[], nextCursor: string | null) {
  return {
    watches: watches.map((watch) => ({
      ...common(watch),
      last_checked_at: watch.lastCheckedAt === null ? null : rfc3339(watch.lastCheckedAt),
    })),
    next_cursor: nextCursor,
  };
}
