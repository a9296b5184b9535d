/**
 * Domain validation and normalization (contract §3 "validate"): one function used by the free
 * validate route and, before any payment logic, by every paid route and tool.
 */
import type { InvalidReason } from '../checks/outcome.ts';

/** Longest `domain` input accepted at all; longer input is a 400 even on the free route. */
export const MAX_INPUT_LENGTH = 2048;

/** A domain that passed validation. */
export interface ValidDomain {
  /** ASCII (A-label) form, lower case, no trailing dot. */
  domain: string;
  /** Unicode (U-label) form. */
  unicode: string;
  registrableDomain: string;
  publicSuffix: string;
  /** True when `domain` is its own registrable domain. */
  isApex: boolean;
}

export type DomainCheck = ({ valid: true } & ValidDomain) | { valid: false; reason: InvalidReason };
