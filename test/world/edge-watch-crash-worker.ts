/**
 * TEST-ONLY Worker entry: the production Worker (`src/edge/worker.ts`) whose watch objects take a
 * 2 s lease instead of 60 s and can be reset on demand, as the platform resets an object (a
 * deployment, an eviction, a crash of its machine) in the middle of whatever it runs:
 * `POST /__test/watch-crash/<watch_id>` resets that watch's object (`DurableObjectState.abort`).
 *
 * Only tests bundle this file (`buildWorker(…, EDGE_WATCH_CRASH_ENTRY)`); `wrangler.jsonc`'s `main`
 * is `src/edge/worker.ts`, so no deployed Worker contains this hook or answers its route.
 */
import type { ExecutionContext } from 'cloudflare:workers';
import type { EdgeEnv } from '../../src/edge/edge-env.ts';
import worker, {
  AuthorizationObject,
  DomainCheckObject,
  RateBucketObject,
  ReceiverHostObject,
  SettlerObject,
  WalletObject,
  WatchCountObject,
  WatchObject as ProductionWatchObject,
} from '../../src/edge/worker.ts';

export {
  AuthorizationObject,
  DomainCheckObject,
  RateBucketObject,
  ReceiverHostObject,
  SettlerObject,
  WalletObject,
  WatchCountObject,
};

/** The lease the test waits out: short, still longer than a delivery to a loopback receiver. (Not exported: a module export of a Worker entry must be a handler or a class.) */
const TEST_LEASE_MS = 2_000;
const CRASH_PATH = '/__test/watch-crash/';

export class WatchObject extends ProductionWatchObject {
  protected override readonly leaseMs = TEST_LEASE_MS;

  /** Resets this object now: its alarm run, and the delivery it holds open, are cut off. */
  crash(): void {
    this.ctx.abort('reset by the test');
  }
}

export default {
  async fetch(request: Request, env: EdgeEnv, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== 'POST' || !url.pathname.startsWith(CRASH_PATH))
      return worker.fetch(request, env, ctx);
    const { WATCHES } = env;
    // The binding's class is this entry's WatchObject, which adds `crash`.
    const object = WATCHES.get(WATCHES.idFromName(url.pathname.slice(CRASH_PATH.length))) as unknown as {
      crash(): Promise<void>;
    };
    // The reset fails the call that caused it: that failure is the sign it happened.
    const reset = await object.crash().then(
      () => false,
      () => true,
    );
    return new Response(null, { status: reset ? 204 : 500 });
  },
};
