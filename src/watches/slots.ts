/**
 * When a domain is checked: at its slot, the instants t with (t − offset(domain)) mod interval = 0,
 * one per interval. The offset is a stable hash of the (normalized) domain, so every watch of a
 * domain, bought at any time and held by any instance or object, is due at the same instant, and
 * different domains spread over the interval so that watches bought together do not reach the
 * upstreams together. A new watch's first check is the first slot at least a tenth of an interval
 * after its purchase; later ones are the first slot after the round window that shared the result
 * it used: one interval on, slot to slot.
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

/**
 * The window a round's result is shared in (`round-check.ts`): a quarter of the interval, so the
 * watches of a domain due at its slot take one result however late their instance or claim comes
 * to them; their next check is the domain's first slot after the window, so they do not read it twice.
 */
export const roundWindowMs = (intervalS: number) => intervalS * 250;

const intervalMs = (intervalS: number) => Math.max(1, Math.round(intervalS * 1000));

/** Where `domain`'s slot falls within each interval of `intervalMs`: in [0, intervalMs). */
export function slotOffsetMs(domain: string, intervalMs: number): number {
  return hash32(domain) % intervalMs;
}

/** The first of `domain`'s slots at or after `earliest` (epoch ms). */
export function slotAtOrAfter(domain: string, intervalS: number, earliest: number): number {
  const spanMs = intervalMs(intervalS);
  const offset = slotOffsetMs(domain, spanMs);
  return offset + Math.ceil((earliest - offset) / spanMs) * spanMs;
}

/**
 * The first check of a watch bought at `boughtAt` (after the paid call's own check): the domain's
 * first slot at least a tenth of an interval later, so in [0.1, 1.1) intervals, and with every
 * other watch of the domain from then on.
 */
export function firstCheckAfter(domain: string, intervalS: number, boughtAt: number): number {
  return slotAtOrAfter(domain, intervalS, boughtAt + intervalS * 100);
}

/**
 * A watch's next check when the result (or failure) its last check used was taken at `checkedAt`:
 * the domain's first slot once the round window no longer hands that result out, so a watch never
 * reads one twice. A check that began less than three quarters of an interval after its slot (any
 * but a stalled one) is thus followed by the next slot, exactly one interval after its own.
 */
export function nextCheckAfter(domain: string, intervalS: number, checkedAt: number): number {
  return slotAtOrAfter(domain, intervalS, checkedAt + roundWindowMs(intervalS));
}
