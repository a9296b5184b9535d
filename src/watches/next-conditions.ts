/**
 * A watch's next state from its last one and a check's result. A condition changes only when the
 * check observed the change: a code the result could not judge (`unjudged.ts`) is carried as it
 * was; a failure that must be confirmed (a failed probe, a served-chain code) is raised only once
 * seen twice (`confirm.ts`).
 */
import type { SiteHealthResult } from '../checks/site-health/result.ts';
import { conditionsOf } from './conditions.ts';
import { confirmableCodes, judgingOf } from './unjudged.ts';

export interface NextConditions {
  /** The new state, sorted. */
  conditions: string[];
  /** Codes of the last state carried into the new one without the check judging them, sorted. */
  unjudged: string[];
}

/**
 * The state after `result`, from `previous`. `unconfirmed`: the confirmable codes of `result` seen
 * only once (`confirm.ts`): not raised now.
 */
export function nextConditions(
  previous: readonly string[],
  result: SiteHealthResult,
  unconfirmed: readonly string[] = [],
): NextConditions {
  const observed = conditionsOf(result);
  const seen = new Set(observed);
  const { canRaise, canClear } = judgingOf(result);
  const waiting = new Set(confirmableCodes(result, unconfirmed));
  const held = new Set(previous);
  const next = new Set<string>();
  const carried: string[] = [];
  for (const code of previous) {
    if (seen.has(code)) next.add(code);
    else if (!canClear(code)) {
      next.add(code);
      carried.push(code);
    }
  }
  for (const code of observed) {
    if (!held.has(code) && canRaise(code) && !waiting.has(code)) next.add(code);
  }
  return { conditions: [...next].sort(), unjudged: carried.sort() };
}
