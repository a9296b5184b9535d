/**
 * Sends one webhook attempt as a steered fetch: the URL's name resolved through DoH, only a
 * public address connected to (pinned), no redirect followed, 15 s for the whole answer, and the
 * answer's body never read. A name that resolves to a refused address is an attempt that failed
 * with `blocked_address`, with no connection made.
 */
import type { FetchLike } from '../sources/bounded-fetch.ts';
import { OutboundRefusal } from '../sources/public-fetch/outbound-refusal.ts';
import type { SendOutcome } from './delivery.ts';
import type { WebhookSender } from './ports.ts';

/** Standard Webhooks 1.0 recommends a timeout of 15–30 s. */
export const DELIVERY_TIMEOUT_MS = 15_000;

export function createWebhookSender(publicFetch: FetchLike, timeoutMs = DELIVERY_TIMEOUT_MS): WebhookSender {
  return async function sendWebhook({ url, headers, body }): Promise<SendOutcome> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await publicFetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
      // Only the status counts: the body is dropped unread, so no answer can make this grow.
      await response.body?.cancel().catch(() => {});
      return { kind: 'answered', status: response.status };
    } catch (error) {
      if (error instanceof OutboundRefusal) return { kind: 'failed', error: error.code };
      return { kind: 'failed', error: signal.aborted ? 'timeout' : 'network' };
    }
  };
}
