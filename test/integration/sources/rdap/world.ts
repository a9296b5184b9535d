/**
 * The RDAP fakes' shared setup for the RDAP and expiry tests: registry, registrar, bootstrap, the
 * DoH resolver the steered fetch asks, and a movable clock.
 */
import type { SharedAnswers } from '../../../../src/sources/cache.ts';
import { resolveAddresses } from '../../../../src/sources/doh/addresses.ts';
import { createDohClient } from '../../../../src/sources/doh/client.ts';
import {
  createNodeTransport,
  type SocketConnector,
} from '../../../../src/sources/public-fetch/node-transport.ts';
import { createPublicFetch } from '../../../../src/sources/public-fetch/public-fetch.ts';
import { createRdapClient, type RdapClient } from '../../../../src/sources/rdap/client.ts';
import { type FakeDoh, startDoh } from '../../../world/doh.ts';
import { type RdapBootstrapFake, startRdapBootstrap } from '../../../world/rdap-bootstrap.ts';
import { type RdapRegistryFake, startRdapRegistry } from '../../../world/rdap-registry.ts';
import { loadScenarios } from '../../../world/scenarios/index.ts';

/** The fakes' and clients' "now" at the start of every RDAP test. */
export const NOW = new Date('2026-11-22T10:00:00Z');
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** How a client's steered fetch connects; the default is the test world's (loopback allowed, real sockets). */
export interface SteeringOptions {
  /** `PROBE_ALLOW_PRIVATE`; default true, as the fakes listen on loopback. */
  allowPrivate?: boolean;
  connect?: SocketConnector;
}

export interface RdapWorld {
  registry: RdapRegistryFake;
  bootstrap: RdapBootstrapFake;
  doh: FakeDoh;
  clock: { now: Date; advance(ms: number): void };
  /**
   * A fresh client (empty caches) on the fakes and the world clock; `budgetMs` defaults to 2 s;
   * `shared`, the answers it shares with other instances.
   */
  client(budgetMs?: number, steering?: SteeringOptions, shared?: SharedAnswers): RdapClient;
  /** Requests the registry fake received for `path` (e.g. `/com/v1/domain/healthy-shop.com`). */
  registryHits(path: string): number;
  close(): Promise<void>;
}

export async function startRdapWorld(): Promise<RdapWorld> {
  const clock = {
    now: NOW,
    advance(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms);
    },
  };
  const scenarios = await loadScenarios();
  const [registry, doh] = await Promise.all([
    startRdapRegistry(scenarios, { now: () => clock.now }),
    startDoh(scenarios),
  ]);
  const bootstrap = await startRdapBootstrap(registry.url);
  const fetch = (input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init);
  return {
    registry,
    bootstrap,
    doh,
    clock,
    client: (budgetMs = 2_000, steering = {}, shared) => {
      const resolver = createDohClient({ fetch, primaryUrl: doh.endpoint, fallbackUrl: doh.endpoint });
      return createRdapClient({
        fetch,
        publicFetch: createPublicFetch({
          resolve: (name) => resolveAddresses(resolver, name),
          allowPrivate: steering.allowPrivate ?? true,
          transport: createNodeTransport(steering.connect),
        }),
        bootstrapUrl: bootstrap.fileUrl,
        budgetMs,
        now: () => clock.now,
        ...(shared ? { shared } : {}),
      });
    },
    registryHits: (path) => registry.requests.filter((r) => r.url.pathname === path).length,
    close: async () => {
      await Promise.all([registry.close(), bootstrap.close(), doh.close()]);
    },
  };
}
