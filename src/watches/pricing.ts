/**
 * The price of a watch: `WATCH_PRICE_PER_30_DAYS_USD` pro rata of its days, rounded up to the
 * asset's atomic unit (USDC: 6 decimals), so a 1-day watch never costs nothing.
 */
import { DEFAULT_PRICE_PER_30_DAYS_USD, usdToAtomic } from '../catalog.ts';
import { DEFAULT_DAYS, proRataAtomic } from '../watch-price.ts';

export { DEFAULT_DAYS };
export const MIN_DAYS = 1;

/**
 * The most one payment may cost: `@x402/core`'s default `maxAmountPerPayment` ($1.00), which a
 * standard client enforces before it signs (reference/agents-2026.md). A watch longer than that
 * buys is extended.
 */
export const MAX_PAYMENT_ATOMIC = 1_000_000n;

/** The most days one payment buys at `pricePer30DaysUsd` (at least one). */
export function maxDaysAt(pricePer30DaysUsd: string): number {
  const per30 = BigInt(usdToAtomic(pricePer30DaysUsd));
  if (per30 === 0n) return MAX_WATCH_DAYS;
  return Math.min(MAX_WATCH_DAYS, Math.max(MIN_DAYS, Number((MAX_PAYMENT_ATOMIC * 30n) / per30)));
}

/** The longest a watch may run from now, extensions included: ten years. */
export const MAX_WATCH_DAYS = 3_650;

/** The most days one payment buys at the published price (300). */
export const MAX_DAYS = maxDaysAt(DEFAULT_PRICE_PER_30_DAYS_USD);
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

/** The 402's words for a watch of `days`: "This watch costs $0.10 in USDC for 30 days". */
export function watchCost(pricePer30DaysUsd: string, days: number): string {
  return `This watch costs ${dollars(watchPriceUsd(pricePer30DaysUsd, days))} in USDC for ${daysWord(days)}`;
}

/** The 402's words for extending a watch by `days`: "Extending this watch by 30 days costs $0.10 in USDC". */
export function extensionCost(pricePer30DaysUsd: string, days: number): string {
  return `Extending this watch by ${daysWord(days)} costs ${dollars(watchPriceUsd(pricePer30DaysUsd, days))} in USDC`;
}

const daysWord = (days: number): string => (days === 1 ? '1 day' : `${days} days`);

/** A decimal USD string as people read it, cents at least: "0.1" → "$0.10", "0.003334" → "$0.003334". */
function dollars(usd: string): string {
  const [whole, fraction = ''] = usd.split('.');
  return `$${whole}.${fraction.padEnd(2, '0')}`;
}
