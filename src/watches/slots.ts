/**
 * When a domain is checked: on its own grid of slots, the instants t with
 * (t − offset(domain)) mod spacing = 0, slots a tenth of the interval apart. The offset is a stable
 * hash of the (normalized) domain, so watches of a domain bought at any time land on a few shared
 * instants, and different domains spread over each spacing so that watches bought together do not
 * reach the upstreams together. A watch's next check is the first slot at least one interval after
 * the result it last used: every gap lies in [interval, 1.1 × interval), and a watch that took
 * another's result (`scheduler.ts`, `round-check.ts`) moves onto that watch's slot for good.
 */

/** FNV-1a over the name's UTF-16 units, then MurmurHash3's 32-bit finalizer so every bit avalanches. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The spacing of a domain's slots: a tenth of the interval (whole milliseconds, at least one). */
export const slotSpacingMs = (intervalS: number) => Math.max(1, Math.floor(intervalS * 100));

/** Where `domain`'s slots fall within a spacing of `spacingMs`: in [0, spacingMs). */
export function slotOffsetMs(domain: string, spacingMs: number): number {
  return hash32(domain) % spacingMs;
}

/** The first of `domain`'s slots at or after `earliest` (epoch ms). */
export function slotAtOrAfter(domain: string, intervalS: number, earliest: number): number {
  const spacingMs = slotSpacingMs(intervalS);
  const offset = slotOffsetMs(domain, spacingMs);
  return offset + Math.ceil((earliest - offset) / spacingMs) * spacingMs;
}

/**
 * A watch's next check when the result (or failure) its last check used was taken at `checkedAt`:
 * the domain's first slot at or after one interval later, so less than a tenth of an interval more.
 */
export function nextCheckAfter(domain: string, intervalS: number, checkedAt: number): number {
  return slotAtOrAfter(domain, intervalS, checkedAt + intervalS * 1000);
}
