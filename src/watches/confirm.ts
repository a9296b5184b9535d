/**
 * Confirmation inside a scheduled check: when a result shows a failure that must be seen twice (a
 * failed probe, a served-chain code: `unjudged.ts`), the domain is checked again `confirmMs` later
 * and only what both saw counts. A single timeout on a loaded host raises nothing; a real outage is
 * raised one confirmation interval late. The check's round shares the confirmed outcome, so every
 * watch of the domain reads the same (`round-check.ts`); the second check's CT answers come from the
 * cache, its probe is new.
 */
import { conditionsOf } from './conditions.ts';
import type { WatchCheck } from './ports.ts';
import { confirmableCodes } from './unjudged.ts';

/** `WATCH_CONFIRM_S`'s default: a few seconds, beyond a brief network fault, short beside an interval. */
export const CONFIRM_S = 5;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function confirmingCheck(check: WatchCheck, confirmMs: number, sleep = wait): WatchCheck {
  return async (domain) => {
    const first = await check(domain);
    if (first.type !== 'result') return first;
    const once = confirmableCodes(first.result, conditionsOf(first.result));
    if (once.length === 0) return first;
    await sleep(confirmMs);
    const second = await check(domain);
    if (second.type !== 'result') return { ...first, unconfirmed: once };
    const seenBefore = new Set(once);
    const unconfirmed = confirmableCodes(second.result, conditionsOf(second.result)).filter(
      (code) => !seenBefore.has(code),
    );
    return unconfirmed.length > 0 ? { ...second, unconfirmed } : second;
  };
}
