import { yieldToEventLoop } from './json-array-slices.ts';

/**
 * Resolves once the requests started just before are on the wire: two turns of the event loop.
 * Node's fetch writes a request on a reused keep-alive connection from a `setImmediate`; whatever
 * starts after it in the same turn (a check's other requests, the settlement's record) would hold it
 * back by its own work, and every millisecond of that is the payer's (bench/README.md).
 */
export async function afterRequestsSent(): Promise<void> {
  await yieldToEventLoop();
  await yieldToEventLoop();
}
