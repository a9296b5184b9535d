/** Reaching outside hosts on Node: sockets pinned to the address the SSRF policy checked. */
import { createProbe } from './probe/probe.ts';
import { createNodeTransport } from './public-fetch/node-transport.ts';
import type { Reach } from './reach.ts';

/** `probeCa`: an extra trust anchor (PEM) for the probe, for test CAs; production trusts the system store. */
export function nodeReach(probeCa?: string): Reach {
  return {
    probe: (setup) => createProbe({ ...setup, ...(probeCa ? { ca: probeCa } : {}) }),
    readsServedLeaf: true,
    transport: createNodeTransport(),
  };
}
