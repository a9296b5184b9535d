/**
 * A test Worker for the store contract (`durable-watch-store.ts`): one Durable Object class whose
 * storage holds a `durableWatchStore` (`src/edge/watch-storage.ts`, as `WatchObject` keeps its one
 * watch), and a `fetch` that makes one store call on the object a request names:
 * `{ object, method, args }` in, `{ result }` out, as JSON.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import { durableWatchStore } from '../../src/edge/watch-storage.ts';
import type { WatchStore } from '../../src/watches/ports.ts';

export interface StoreCall {
  object: string;
  method: keyof WatchStore;
  args: unknown[];
}

export class WatchStoreObject extends DurableObject {
  readonly #store = durableWatchStore(this.ctx.storage);

  async call(method: keyof WatchStore, args: unknown[]): Promise<unknown> {
    const call = this.#store[method] as (...args: unknown[]) => Promise<unknown>;
    return call(...args);
  }
}

export default {
  async fetch(
    request: Request,
    env: { STORES: DurableObjectNamespace<WatchStoreObject> },
  ): Promise<Response> {
    const { object, method, args } = (await request.json()) as StoreCall;
    const stub = env.STORES.get(env.STORES.idFromName(object));
    return Response.json({ result: await stub.call(method, args) });
  },
};
