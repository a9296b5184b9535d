/**
 * Renewal cadence from CT history: the series of issuances the current certificate renews, the
 * median interval between them and the point in each lifetime at which the next one came.
 */
import { type Issuance, issuanceCovers, sameNames } from '../../sources/ct/issuance.ts';
import { DAY_MS, lifetimeMs, median, oneDecimal } from './validity.ts';

/** Issuances closer together than this are one renewal event (e.g. two servers renewing the same names). */
export const SAME_EVENT_MS = DAY_MS;

export interface Cadence {
  /** The renewal series, oldest first. */
  series: Issuance[];
  /** Days between consecutive issuances of the series, oldest gap first. */
  intervalsDays: number[];
  /** Median interval in days; null with fewer than two issuances in the series. */
  cadenceDays: number | null;
  /** Median point (0–100) in the previous certificate's lifetime at which the next was issued. */
  renewsAtPercent: number | null;
  /** That point for each renewal of the series, oldest first. */
  renewsAtPercents: number[];
}

/**
 * The renewal series of `current`. A domain's CT history often mixes in issuances that are not its
 * renewals: a second CA's certificate (a CDN, a yearly commercial certificate) or a certificate
 * for a different set of names that also lists this one. Counted in, they create gaps of a few
 * days and drag the median down. So the series is the issuances from the same CA with the same
 * names as the current certificate; when that leaves it alone (its names changed), the same CA
 * alone. Issuances less than a day apart count once.
 */
export function renewalSeriesOf(
  issuances: readonly Issuance[],
  current: Issuance,
  domain: string,
): Issuance[] {
  const covering = issuances.filter(
    (issuance) => issuanceCovers(issuance, domain) && issuance.notBefore <= current.notBefore,
  );
  const sameCa = covering.filter((issuance) => issuance.issuer === current.issuer);
  const withSameNames = sameCa.filter((issuance) => sameNames(issuance, current));
  const chosen = withSameNames.length >= 2 ? withSameNames : sameCa;
  const series: Issuance[] = [];
  for (const issuance of [...chosen].sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime())) {
    const previous = series.at(-1);
    if (previous && issuance.notBefore.getTime() - previous.notBefore.getTime() < SAME_EVENT_MS) {
      series[series.length - 1] = issuance;
      continue;
    }
    series.push(issuance);
  }
  return series;
}

/** Cadence of the renewal series ending at `current`. */
export function assessCadence(issuances: readonly Issuance[], current: Issuance, domain: string): Cadence {
  const series = renewalSeriesOf(issuances, current, domain);
  const intervalsDays: number[] = [];
  const percents: number[] = [];
  for (let i = 1; i < series.length; i++) {
    const previous = series[i - 1];
    const next = series[i];
    if (!previous || !next) continue;
    const gapMs = next.notBefore.getTime() - previous.notBefore.getTime();
    intervalsDays.push(gapMs / DAY_MS);
    percents.push((gapMs / lifetimeMs(previous)) * 100);
  }
  return {
    series,
    intervalsDays,
    cadenceDays: intervalsDays.length ? oneDecimal(median(intervalsDays)) : null,
    renewsAtPercent: percents.length ? oneDecimal(median(percents)) : null,
    renewsAtPercents: percents,
  };
}
