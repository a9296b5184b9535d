/**
 * The Durable Object watch store (`src/edge/watch-storage.ts`) on real storage in local workerd,
 * for the store contract: the test Worker `durable-watch-store-worker.ts`, bundled with esbuild and
 * served by Miniflare with SQLite-backed objects, as `wrangler.jsonc` declares the watch objects.
 * Every call of a store this returns is one request to its object.
 */
import { build } from 'esbuild';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import type { WatchStore } from '../../src/watches/ports.ts';
import type { StoreCall } from './durable-watch-store-worker.ts';

export interface DurableWatchStores {
  /** The store of the object named `object`, as a request to it sees it. */
  store(object: string): WatchStore;
  close(): Promise<void>;
}

const METHODS = [
  'insert',
  'get',
  'discardPending',
  'commit',
  'claimDue',
  'nextDueAt',
  'events',
  'attempts',
  'claimDeliveries',
  'nextDeliveryAt',
  'recordAttempt',
  'pendingOpenedBy',
  'countByStatus',
  'close',
] as const satisfies readonly (keyof WatchStore)[];

export async function startDurableWatchStores(): Promise<DurableWatchStores> {
  const bundle = await build({
    entryPoints: [new URL('./durable-watch-store-worker.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    external: ['cloudflare:workers'],
    write: false,
  });
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: bundle.outputFiles[0]!.text,
      compatibilityDate: '2026-10-20',
      durableObjects: { STORES: { className: 'WatchStoreObject', useSQLite: true } },
      unsafeEphemeralDurableObjects: true,
    }),
  );
  await mf.ready;

  async function call(object: string, method: StoreCall['method'], args: unknown[]): Promise<unknown> {
    const res = await mf.dispatchFetch('http://stores.test/', {
      method: 'POST',
      body: JSON.stringify({ object, method, args } satisfies StoreCall),
    });
    if (!res.ok) throw new Error(`${method} on object ${object}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { result: unknown }).result;
  }

  return {
    store: (object) =>
      Object.fromEntries(
        METHODS.map((method) => [method, (...args: unknown[]) => call(object, method, args)]),
      ) as unknown as WatchStore,
    close: () => mf.dispose(),
  };
}
