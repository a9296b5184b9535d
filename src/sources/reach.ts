/**
 * How a runtime reaches hosts the service did not configure: the live HTTPS probe and the transport
 * of the steered fetch (RDAP bases and referrals). Chosen at the entry point: Node pins sockets to
 * the address it checked (`node-reach.ts`); Workers have only `fetch` (`edge/edge-reach.ts`).
 */
import type { FetchLike } from './bounded-fetch.ts';
import type { SourceResult } from './failure.ts';
import type { Probe } from './probe/probe.ts';
import type { PinnedTransport } from './public-fetch/public-fetch.ts';

export interface ProbeSetup {
  /** Name → A and AAAA addresses through DoH; the probe resolves nothing else. */
  resolve: (name: string) => Promise<SourceResult<string[]>>;
  /** TCP port of the probe (`PROBE_PORT`). */
  port: number;
  /** `PROBE_ALLOW_PRIVATE`: test worlds only. */
  allowPrivate: boolean;
}

export interface Reach {
  probe(setup: ProbeSetup): Probe;
  /** Whether the probe reads the leaf certificate the site serves (Node yes; workerd cannot: cloudflare/workerd#1041). */
  readsServedLeaf: boolean;
  /** How the configured upstreams (CT, DoH, RDAP bootstrap, ARI) are fetched; default the global `fetch`. */
  upstreamFetch?: FetchLike;
  transport: PinnedTransport;
}
