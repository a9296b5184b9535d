/**
 * A watch's published price and its pro-rata rule, importing nothing: the service's pricing
 * (`watches/pricing.ts`, `config.ts`) and the client package's default cap for `watch`
 * (`packages/client/src/args.ts`, which bundles this file) compute from the same lines.
 */

/** The default of `WATCH_PRICE_PER_30_DAYS_USD`: a watch's published price, pro rata of its days. */
export const DEFAULT_PRICE_PER_30_DAYS_USD = '0.10';

/** The days a watch lasts when none are asked for. */
export const DEFAULT_DAYS = 30;

/** Atomic units of `days` of watching at `per30DaysAtomic`, rounded up so a 1-day watch never costs nothing. */
export function proRataAtomic(per30DaysAtomic: bigint, days: number): bigint {
  return (per30DaysAtomic * BigInt(days) + 29n) / 30n;
}
