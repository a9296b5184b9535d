/**
 * The process's stop, as the request path sees it: once a stop begins, requests in flight get a
 * grace to reach settlement; a paid request that has not started settling when it ends is answered
 * 503 and not settled, and one already settling is let finish.
 */
export interface Lifecycle {
  /** True from the start of a stop on. */
  readonly stopping: boolean;
  /** Settlements under way now. */
  readonly settling: number;
  /** False once a stop's grace has passed: no new settlement may begin. */
  acceptingSettlements(): boolean;
  /** Marks a settlement as under way; call the returned function when it has ended. */
  beginSettlement(): () => void;
  /** Starts the stop; settlements may still begin for `graceMs`. */
  beginStop(graceMs: number): void;
}

export function createLifecycle(now: () => number = Date.now): Lifecycle {
  let settleUntil = Number.POSITIVE_INFINITY;
  let settling = 0;
  return {
    get stopping() {
      return settleUntil !== Number.POSITIVE_INFINITY;
    },
    get settling() {
      return settling;
    },
    acceptingSettlements: () => now() < settleUntil,
    beginSettlement() {
      settling += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        settling -= 1;
      };
    },
    beginStop(graceMs) {
      settleUntil = Math.min(settleUntil, now() + graceMs);
    },
  };
}
