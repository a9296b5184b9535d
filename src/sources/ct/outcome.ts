/** What one CT lookup answers: the issuances from one source, or why none could be had. */
import type { SourceCall } from '../failure.ts';
import type { CtLookupFailure, CtSourceName } from './failure.ts';
import type { Issuance } from './issuance.ts';

export interface CtAnswer {
  /** Issuances covering the domain, newest first. */
  issuances: Issuance[];
  source: CtSourceName;
}

export type CtLookupResult = { ok: true; value: CtAnswer } | { ok: false; failure: CtLookupFailure };

export interface CtLookupOutcome {
  result: CtLookupResult;
  /** Each source consulted; `cached` (with `ms` 0) when the answer was reused or shared. */
  calls: SourceCall[];
}
