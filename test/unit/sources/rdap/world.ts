/** The RDAP fakes' shared setup for the RDAP and expiry tests: registry, registrar, bootstrap, a movable clock. */
import { createRdapClient, type RdapClient } from '../../../../src/sources/rdap/client.ts';
import { type RdapBootstrapFake, startRdapBootstrap } from '../../../world/rdap-bootstrap.ts';
import { type RdapRegistryFake, startRdapRegistry } from '../../../world/rdap-registry.ts';
import { loadScenarios } from '../../../world/scenarios/index.ts';

/** The fakes' and clients' "now" at the start of every RDAP test. */
export const NOW = new Date('2026-11-22T10:00:00Z');
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export interface RdapWorld {
  registry: RdapRegistryFake;
  bootstrap: RdapBootstrapFake;
  clock: { now: Date; advance(ms: number): void };
  /** A fresh client (empty caches) on the fakes and the world clock. */
  client(timeoutMs?: number): RdapClient;
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
  const registry = await startRdapRegistry(await loadScenarios(), { now: () => clock.now });
  const bootstrap = await startRdapBootstrap(registry.url);
  return {
    registry,
    bootstrap,
    clock,
    client: (timeoutMs = 2_000) =>
      createRdapClient({
        fetch: (input, init) => fetch(input, init),
        bootstrapUrl: bootstrap.fileUrl,
        timeoutMs,
        now: () => clock.now,
      }),
    registryHits: (path) => registry.requests.filter((r) => r.url.pathname === path).length,
    close: async () => {
      await Promise.all([registry.close(), bootstrap.close()]);
    },
  };
}
