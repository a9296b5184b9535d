/**
 * When a domain is checked: on its own grid of slots, the instants t with
 * (t − offset(domain)) mod interval = 0. The offset is a stable hash of the (normalized) domain,
 * so every watch of a domain — whenever it was bought, on whichever instance or Durable Object —
 * is due at the same instant and one round checks the domain once, while different domains spread
 * over the interval so that watches bought together do not reach the upstreams together.
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

/** Where `domain`'s slots fall within an interval of `intervalMs`: in [0, intervalMs). */
export function slotOffsetMs(domain: string, intervalMs: number): number {
  return Math.floor((hash32(domain) / 2 ** 32) * intervalMs);
}

/** The first of `domain`'s slots at or after `earliest` (epoch ms). */
export function slotAtOrAfter(domain: string, intervalS: number, earliest: number): number {
  const intervalMs = intervalS * 1000;
  const offset = slotOffsetMs(domain, intervalMs);
  return offset + Math.ceil((earliest - offset) / intervalMs) * intervalMs;
}

/**
 * A watch's next check after one made at `checkedAt`: the domain's first slot at least half an
 * interval later. Checks of a watch are thus never closer than the window a round's outcome is
 * shared in (`roundWindowMs`), so no watch takes one outcome twice; a watch checked at its slot
 * (and less than half an interval late) is next checked one interval after that slot, and a new
 * watch joins its domain's slots within one and a half intervals of its first check.
 */
export function nextCheckAfter(domain: string, intervalS: number, checkedAt: number): number {
  return slotAtOrAfter(domain, intervalS, checkedAt + intervalS * 500);
}
