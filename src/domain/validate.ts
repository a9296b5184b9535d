/**
 * The free validate operation (docs/checks/validation.md): `normalizeDomain` shaped as the published
 * result, with nulls and a `reason` when the input is refused.
 */
import type { ValidateResult } from './validate-result.ts';
import { type DomainCheck, normalizeDomain } from './normalize.ts';

/** Validates `input` (a hostname or URL) for the validate route and tool. Never throws. */
export function validateDomain(input: string): ValidateResult {
  const checked = normalizeDomain(input);
  if (!checked.valid) {
    return {
      valid: false,
      input,
      domain: null,
      unicode: null,
      registrable_domain: null,
      public_suffix: null,
      is_apex: null,
      reason: checked.reason,
    };
  }
  return {
    valid: true,
    input,
    domain: checked.domain,
    unicode: checked.unicode,
    registrable_domain: checked.registrableDomain,
    public_suffix: checked.publicSuffix,
    is_apex: checked.isApex,
  };
}

/** The JSON text of validate answers, kept as long as normalizeDomain keeps the check of their input. */
const answered = new WeakMap<DomainCheck, string>();

/** `validateDomain(input)` as JSON text: the validate route's body, serialized once per input. */
export function validateDomainJson(input: string): string {
  const check = normalizeDomain(input);
  let json = answered.get(check);
  if (json === undefined) {
    json = JSON.stringify(validateDomain(input));
    answered.set(check, json);
  }
  return json;
}
