/**
 * CT source names and the failure of a whole CT lookup, which names every aggregator that failed
 * (a 502 body reports each of them in `upstreams`).
 */
import type { SourceFailure } from '../failure.ts';

export type CtSourceName = 'crt.sh' | 'certspotter';

/** A lookup failure: the first failure's code, plus each CT source's own failure. */
export interface CtLookupFailure extends SourceFailure {
  failures: SourceFailure[];
}

/** Combines the failures of the sources tried into one failure naming all of them. */
export function combineCtFailures(failures: readonly SourceFailure[]): CtLookupFailure {
  const [first] = failures;
  if (!first) throw new Error('combineCtFailures needs at least one failure');
  return {
    code: first.code,
    source: failures.map((failure) => failure.source).join('+'),
    detail: failures.map((failure) => failure.detail).join('; '),
    failures: [...failures],
  };
}
