/**
 * TEST-ONLY Worker entry: the production Worker (`src/edge/worker.ts`, unchanged) plus what local
 * workerd lacks, a request signal that aborts when the client goes away. On Cloudflare a client
 * that disconnects aborts `request.signal` (compatibility flag `enable_request_signal`); local
 * workerd never does, so a test tells the Worker instead:
 *
 * - a request carrying `x-test-client: <id>` (an id of the test's choosing) reaches the Worker with
 *   a signal of its own in place of the runtime's;
 * - `POST /__test/client-gone/<id>` aborts the signal of every request of that id still running,
 *   as the platform would the moment that client disconnected.
 *
 * Only tests bundle this file (`buildWorker(…, EDGE_CLIENT_GONE_ENTRY)`, `edge-client-gone.ts`); `wrangler.jsonc`'s `main`
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
  WatchObject,
} from '../../src/edge/worker.ts';
import { CLIENT_GONE_PATH, CLIENT_HEADER } from './edge-client-gone.ts';

export {
  AuthorizationObject,
  DomainCheckObject,
  RateBucketObject,
  ReceiverHostObject,
  SettlerObject,
  WalletObject,
  WatchCountObject,
  WatchObject,
};

const running = new Map<string, Set<AbortController>>();

export default {
  async fetch(request: Request, env: EdgeEnv, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname.startsWith(CLIENT_GONE_PATH)) {
      const id = url.pathname.slice(CLIENT_GONE_PATH.length);
      const requests = running.get(id);
      for (const controller of requests ?? []) controller.abort();
      return new Response(null, { status: requests ? 204 : 404 });
    }
    const id = request.headers.get(CLIENT_HEADER);
    if (id === null) return worker.fetch(request, env, ctx);

    const controller = new AbortController();
    const requests = running.get(id) ?? new Set();
    running.set(id, requests.add(controller));
    try {
      return await worker.fetch(new Request(request, { signal: controller.signal }), env, ctx);
    } finally {
      requests.delete(controller);
      if (requests.size === 0) running.delete(id);
    }
  },
};
