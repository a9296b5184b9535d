/**
 * Why a domain input was refused (docs/checks/validation.md): stable `reason.code` values, published
 * in validate results and 400 bodies. Never rename one.
 */
/** Why an input was refused before any payment logic. `code` is a stable problem code. */
export interface InvalidReason {
  code: string;
  message: string;
  /**
   * Set where the refusal is of the caller rather than of the input (a sign-in another paid call
   * spent): its HTTP status and title; the problem names `message` as its `reason` too.
   */
  refusal?: { status: number; title: string };
}

export const INVALID_REASON_CODES = {
  empty: 'empty',
  invalidUrl: 'invalid_url',
  tooLong: 'too_long',
  labelTooLong: 'label_too_long',
  emptyLabel: 'empty_label',
  invalidCharacters: 'invalid_characters',
  invalidIdn: 'invalid_idn',
  ipLiteral: 'ip_literal',
  localhost: 'localhost',
  reservedName: 'reserved_name',
  publicSuffix: 'public_suffix',
  singleLabel: 'single_label',
  undelegatedTld: 'undelegated_tld',
} as const;

export type InvalidReasonCode = (typeof INVALID_REASON_CODES)[keyof typeof INVALID_REASON_CODES];

/** A refusal with its code and a one-sentence message. */
export function invalidReason(code: InvalidReasonCode, message: string): InvalidReason {
  return { code, message };
}
