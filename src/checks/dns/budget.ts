/**
 * Time bounds of the dns check. The paid call must finish within 12 s whatever the resolvers do,
 * so the whole check has one budget, passed down as deadlines rather than summed per lookup.
 */

/** The whole dns check, lookups and resolver health check included. */
export const DNS_CHECK_BUDGET_MS = 8_000;
/**
 * Kept back from the lookups for the control query that tells a failing name from failing
 * resolvers: lookups still running after `DNS_CHECK_BUDGET_MS - DNS_CONTROL_RESERVE_MS` fail.
 */
export const DNS_CONTROL_RESERVE_MS = 1_500;
