import type { SourceFailureCode } from '../failure.ts';

/** Why a steered request was refused before (or instead of) a connection. */
export class OutboundRefusal extends Error {
  override readonly name = 'OutboundRefusal';
  /** The `SourceFailureCode` the refusal is reported as. */
  readonly code: SourceFailureCode;
  constructor(code: SourceFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}
