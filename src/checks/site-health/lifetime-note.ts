/** The 64-day certificate note (docs/checks/site-health.md), published in site-health, the pricing tool and discovery. */
import type { LifetimeNote } from './result.ts';

export const LIFETIME_FACTS = [
  'A certificate authority issues 64-day certificates by default for every issuance or renewal on or after 2027-02-10.',
  'The lifetime becomes 45 days from 2028-02-16.',
  "64-day certificates are available in the authority's staging environment from 2026-10-14.",
  'Renew at about two-thirds of the lifetime, using ACME ARI (RFC 9773) or a two-thirds rule.',
  'Hard-coded renewal targets such as day 60, 80 or 83 of a 90-day certificate will break.',
  // Confirmed since the note was first published.
  "Let's Encrypt's `classic` profile (the default) issues 64-day certificates with 10-day authorization reuse from 2027-02-10, and 45-day certificates with 7-hour authorization reuse from 2028-02-16.",
  "Let's Encrypt's `tlsserver` profile already issues 45-day certificates, and its `shortlived` profile 160-hour ones.",
  'Renew when two-thirds of the lifetime has passed (half of it for lifetimes under 10 days), or better, ask the CA for ACME Renewal Information (ARI) at least twice a day and renew inside its window.',
  'The CA/Browser Forum maximum certificate lifetime falls to 100 days on 2027-03-15 and to 47 days on 2029-03-15.',
  'With shorter authorization reuse, a broken DNS or HTTP validation set-up fails at the next renewal, not at expiry.',
] as const;

/**
 * The note; `applies` says whether this domain's observed renewal cadence would break, and
 * `followsAri` whether its renewals already follow the CA's ARI window (null: unknown).
 */
export function lifetimeNote(applies: boolean, followsAri: boolean | null = null): LifetimeNote {
  return {
    applies,
    follows_ari_window: followsAri,
    summary: applies
      ? 'This domain renews on a fixed schedule that would leave too little margin once certificates last 64 days; switch to ARI or a two-thirds-of-lifetime rule.'
      : followsAri
        ? "This domain's renewals follow the CA's ARI window, which moves with the lifetime: 64-day certificates will not break them."
        : 'No fixed-day renewal that would break under 64-day certificates was observed for this domain.',
    default_64_day_from: '2027-02-10',
    default_45_day_from: '2028-02-16',
    staging_64_day_from: '2026-10-14',
    cabf_max_100_days_from: '2027-03-15',
    cabf_max_47_days_from: '2029-03-15',
    recommendation:
      'Renew at about two-thirds of the certificate lifetime (half for lifetimes under 10 days), or better by ACME ARI (RFC 9773) checked at least twice a day.',
    facts: [...LIFETIME_FACTS],
  };
}
