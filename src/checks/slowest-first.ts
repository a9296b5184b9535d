import { yieldToEventLoop } from '../sources/json-array-slices.ts';

/**
 * Resolves once a check's slowest request, started just before (the CT search), is on the wire:
 * two turns of the event loop. Node's fetch writes a request on a reused keep-alive connection from
 * a `setImmediate`; whatever starts in the same turn (a probe's address lookups, ~30 DoH questions,
 * RDAP) would hold it back by its own starting work, and every millisecond of that is the payer's.
 */
export async function afterSlowestSent(): Promise<void> {
  await yieldToEventLoop();
  await yieldToEventLoop();
}
