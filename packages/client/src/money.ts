/** USDC amounts: the x402 challenge states atomic units (6 decimals), people and caps use dollars. */

const USDC_DECIMALS = 6;
const USD_PATTERN = /^\d+(\.\d{1,6})?$/;

/** Whether `text` is a dollar amount this client accepts as a cap, e.g. `0.05`. */
export function isUsdAmount(text: string): boolean {
  return USD_PATTERN.test(text);
}

/** `"0.05"` → `50000n`. */
export function usdToAtomic(usd: string): bigint {
  const [whole = '0', fraction = ''] = usd.split('.');
  return BigInt(whole) * 10n ** BigInt(USDC_DECIMALS) + BigInt(fraction.padEnd(USDC_DECIMALS, '0'));
}

/** `30000n` → `"0.03"`: at least two decimals, no trailing zeros beyond them. */
export function atomicToUsd(atomic: bigint): string {
  const scale = 10n ** BigInt(USDC_DECIMALS);
  const fraction = (atomic % scale).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  return `${atomic / scale}.${fraction.padEnd(2, '0')}`;
}
