/** What the rest of the app may use from the expiry check. */
export { assessExpiry, daysUntil } from './assess.ts';
export { toEppStatus, toEppStatuses } from './epp-status.ts';
export { EXPIRES_SOON_CRITICAL_DAYS, EXPIRES_SOON_WARNING_DAYS, EXPIRY_FINDINGS } from './findings.ts';
export { type ExpiryResult, expiryResultSchema } from './result.ts';
export {
  createExpiryAdmission,
  createExpiryRunner,
  EXPIRY_BUDGET_MS,
  type ExpiryAdmission,
  type ExpiryRunner,
  registryName,
  UNSUPPORTED_TLD,
} from './run.ts';
