/**
 * The price of a watch: `WATCH_PRICE_PER_30_DAYS_USD` pro rata of its days, rounded up to the
 * asset's atomic unit (USDC: 6 decimals), so a 1-day watch never costs nothing.
 */
import { DEFAULT_PRICE_PER_30_DAYS_USD, usdToAtomic } from '../catalog.ts';
import { DEFAULT_DAYS, proRataAtomic } from '../watch-price.ts';

export { DEFAULT_DAYS };
export const MIN_DAYS = 1;
export const MAX_DAYS = 365;
/** The published price of a watch, as people read it. */
export const WATCH_PRICE_NOTE = `$${DEFAULT_PRICE_PER_30_DAYS_USD} per 30 days, pro rata`;

/** Atomic units (decimal string) of `days` of watching at `pricePer30DaysUsd`. */
export function watchPriceAtomic(pricePer30DaysUsd: string, days: number): string {
  return proRataAtomic(BigInt(usdToAtomic(pricePer30DaysUsd)), days).toString();
}

/** Atomic units → the decimal USD string of documents, e.g. "3334" → "0.003334", "100000" → "0.1". */
export function atomicToUsd(atomic: string): string {
  const value = BigInt(atomic);
  const whole = value / 1_000_000n;
  const fraction = (value % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

/** The decimal USD price of `days` of watching. */
export function watchPriceUsd(pricePer30DaysUsd: string, days: number): string {
  return atomicToUsd(watchPriceAtomic(pricePer30DaysUsd, days));
}
