/**
 * The names of the Worker's test-only client-gone hook (`edge-client-gone-worker.ts`), shared by the
 * hook and the tests that use it: the header that names a request's client and the path that
 * reports that client gone. Nothing here runs at import: the Worker bundle imports it too.
 */

/** The test-only Worker entry (the production Worker with the hook), beside this file. */
export const EDGE_CLIENT_GONE_ENTRY_NAME = 'edge-client-gone-worker.ts';
/** The header naming a request's client. */
export const CLIENT_HEADER = 'x-test-client';
/** The path that reports a client gone: `${CLIENT_GONE_PATH}<id>`. */
export const CLIENT_GONE_PATH = '/__test/client-gone/';

/** Tells the Worker at `base` that client `id` went away; false when none of its requests was running. */
export async function reportClientGone(base: URL, id: string): Promise<boolean> {
  const res = await fetch(new URL(`${CLIENT_GONE_PATH}${id}`, base), { method: 'POST' });
  await res.arrayBuffer();
  return res.status === 204;
}
