/**
 * Long work on an upstream's answer done in slices, and a JSON array read in slices: the text is cut at the commas between top-level elements, each
 * slice of about `SLICE_CHARS` is parsed on its own, and the event loop runs between slices. A
 * 5 MiB upstream answer parsed in one `JSON.parse` (and checked row by row after it) held every
 * other request back for as long as it took; in slices the longest hold is one slice's work.
 */

/** Text per slice, in UTF-16 code units: about 1–3 ms of parsing and checking on a loaded core. */
export const SLICE_CHARS = 64 * 1024;

/** Lets timers, I/O and other requests run: `setImmediate` on Node, a zero timer elsewhere. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** Items handled per slice by `forEachInSlices`: a millisecond or two of light work each. */
export const SLICE_ITEMS = 500;

/** Calls `each` on every item in order, yielding to the event loop after every `perSlice` items. */
export async function forEachInSlices<T>(
  items: Iterable<T>,
  each: (item: T) => void,
  perSlice = SLICE_ITEMS,
): Promise<void> {
  let done = 0;
  for (const item of items) {
    if (done > 0 && done % perSlice === 0) await yieldToEventLoop();
    each(item);
    done += 1;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const WHITESPACE = /^[ \t\n\r]*$/;

/** True when `text` (a whole JSON text) is an array: its first non-whitespace character is `[`. */
export function isJsonArrayText(text: string): boolean {
  const first = text.search(/[^ \t\n\r]/);
  return first >= 0 && text.charCodeAt(first) === OPEN_ARRAY;
}

/**
 * Calls `each` with every element of the JSON array `text`, in order, with its index, yielding to
 * the event loop between slices. Returns false when `text` is not valid JSON (as `JSON.parse`
 * would refuse it), after having handed over the elements before the fault. `text` must be an
 * array (`isJsonArrayText`).
 */
export async function forEachJsonArrayElement(
  text: string,
  each: (value: unknown, index: number) => void,
  sliceChars = SLICE_CHARS,
): Promise<boolean> {
  let at = text.indexOf('[') + 1;
  let index = 0;
  let depth = 1;
  let first = true;
  while (depth > 0) {
    if (!first) await yieldToEventLoop();
    const start = at;
    const target = start + sliceChars;
    // Scan to the first top-level comma past `target`, or to the array's closing bracket.
    let end = -1;
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) {
        at = stringEnd(text, at);
        if (at < 0) return false;
      } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) depth += 1;
      else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        depth -= 1;
        if (depth === 0) {
          end = at;
          break;
        }
      } else if (code === COMMA && depth === 1 && at >= target) {
        end = at;
        break;
      }
      at += 1;
    }
    if (end < 0) return false;
    const slice = text.slice(start, end);
    // `[]` is the only array with nothing between its commas; `[1,]` and `[,1]` are not JSON.
    if (WHITESPACE.test(slice)) {
      if (!(first && depth === 0)) return false;
    } else {
      let values: unknown[];
      try {
        values = JSON.parse(`[${slice}]`) as unknown[];
      } catch {
        return false;
      }
      for (const value of values) each(value, index++);
    }
    first = false;
    at = end + 1;
  }
  return WHITESPACE.test(text.slice(at));
}

/** The index of the quote closing the string opened at `open`, or -1 when it is never closed. */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}
