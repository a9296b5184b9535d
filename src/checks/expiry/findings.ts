/**
 * Finding codes and thresholds of the expiry check. Codes are published: never
 * rename one.
 */

export const EXPIRY_FINDINGS = {
  expired: 'expiry.expired',
  expiresSoon: 'expiry.expires_soon',
  hold: 'expiry.hold',
  pendingDelete: 'expiry.pending_delete',
  noExpiryDate: 'expiry.no_expiry_date',
  notRegistered: 'expiry.not_registered',
} as const;

/** At or below this many days left, `expiry.expires_soon` is critical. */
export const EXPIRES_SOON_CRITICAL_DAYS = 7;
/** At or below this many days left, `expiry.expires_soon` is a warning. */
export const EXPIRES_SOON_WARNING_DAYS = 30;

/** EPP codes that take the domain out of DNS (RFC 5731 §2.3). */
export const HOLD_STATUSES: readonly string[] = ['clientHold', 'serverHold'];
/** EPP codes of the deletion cycle (RFC 5731 §2.3, RFC 3915 §3.1). */
export const DELETION_STATUSES: readonly string[] = ['pendingDelete', 'redemptionPeriod'];
