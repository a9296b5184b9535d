/**
 * RFC 3339 §5.6 `date-time`, as RFC 9773's `suggestedWindow` carries it: any number of fraction
 * digits, `Z` or a numeric offset, and the `T` and `Z` in either case (§5.6 NOTE). A leap second
 * (`:60`) is read as the last second of its minute. Anything else is null.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The instant an RFC 3339 date-time names, or null when `value` is not one. */
export function parseRfc3339(value: string): Date | null {
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [fraction = '', zulu, sign, offsetHours = '0', offsetMinutes = '0'] = match.slice(7);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return null;
  const offsetMs = zulu
    ? 0
    : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), Number(fraction.slice(0, 3).padEnd(3, '0')));
  return new Date(date.getTime() - offsetMs);
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}
