/**
 * Extending a watch, whatever the transport (`POST /v1/watches/{id}/extend`, MCP `watch_extend`):
 * the refusal of a watch that is no longer active, and the paid run that moves its `expires_at`.
 */
import type { ExactAuthorization } from '../payments/exact-authorization.ts';
import type { RunOutcome } from '../checks/outcome.ts';
import { extendPath } from './payment-terms.ts';
import { SPENT_PROOF, type SpendProof } from './access.ts';
import type { WatchService } from './ports.ts';
import { statusView } from './views.ts';

export const NOT_ACTIVE_REASON = {
  code: 'watch_not_active',
  message: 'Only an active watch is extended; this one has ended or was cancelled.',
};

export const NOT_ACTIVE = {
  status: 409 as const,
  code: NOT_ACTIVE_REASON.code,
  title: 'Watch not active',
  detail: NOT_ACTIVE_REASON.message,
};

/** What a payment extending `watchId` by `days` is for, in the payment records and logs. */
export const extensionSubject = (watchId: string, days: number): string => `${extendPath(watchId)} ${days}`;

/**
 * The paid run: the watch extended by this payment (once per authorization), and its status. A
 * sign-in left unspent (`spendProof`) is spent first, for this payment: another payment with the
 * same proof is refused, nothing settled.
 */
export function extensionRun(
  service: WatchService,
  watchId: string,
  days: number,
  spendProof?: SpendProof,
): (paying: ExactAuthorization) => Promise<RunOutcome<unknown>> {
  return async (paying) => {
    if (spendProof && !(await spendProof(paying.key))) return { type: 'invalid_input', reason: SPENT_PROOF };
    const after = await service.extend(watchId, days, paying.key);
    // Ended or cancelled meanwhile: nothing to extend, nothing settled.
    if (after?.status !== 'active') return { type: 'invalid_input', reason: NOT_ACTIVE_REASON };
    const { events, attempts } = await service.history(watchId, 0);
    return { type: 'result', result: statusView(after, events, attempts) };
  };
}
