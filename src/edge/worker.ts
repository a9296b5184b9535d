/**
 * The Worker entry: the same app as `npm start` (`service.ts`), with what the edge provides — `fetch`
 * for the live probe and steered requests, the console for logs, `CF-Connecting-IP` as the client,
 * and Durable Objects for what every isolate must share (the in-flight lock and lost results per
 * authorization, one settlement sequencer per settler wallet, one free-work bucket per client, one
 * object per watch, one per watched domain and one that counts the watches).
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { ExecutionContext } from 'cloudflare:workers';
import { ConfigError } from '../config.ts';
import { PROBLEM_CODES, PROBLEM_MEDIA_TYPE, problemBody } from '../vocabulary/problems.ts';
import { connectingIpClient } from '../ops/client-address.ts';
import { createPrometheusMetrics } from '../ops/metrics.ts';
import { rememberRefusals } from '../ops/rate-buckets.ts';
import { createChainView, rpcClient } from '../payments/chain/chain-view.ts';
import { createService, globalFetch, type Service } from '../service.ts';
import { AuthorizationObject, authorizationState } from './authorization-object.ts';
import { createConsoleLogger } from './console-logger.ts';
import { DomainCheckObject } from './domain-check-object.ts';
import { edgeReach } from './edge-reach.ts';
import { bundledAsset } from './page-asset-texts.ts';
import { edgeConfig } from './edge-config.ts';
import type { EdgeEnv } from './edge-env.ts';
import { durableRateBuckets, RateBucketObject } from './rate-bucket-object.ts';
import { ReceiverHostObject } from './receiver-host-object.ts';
import { SettlerObject, settleThrough } from './settler-object.ts';
import { WatchCountObject } from './watch-count-object.ts';
import { durableWalletLedger, WalletObject } from './wallet-object.ts';
import { durableWatchRuntime, WatchObject } from './watch-object.ts';

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

interface EdgeService extends Service {
  /** Resolves once every lost result remembered so far is stored. */
  recorded: () => Promise<void>;
}

/** Built on an isolate's first request, then shared by every request it serves. */
let service: EdgeService | undefined;

function serviceFor(env: EdgeEnv, origin: string): EdgeService {
  if (service) return service;
  const config = edgeConfig(env, origin);
  const logger = createConsoleLogger(config.logLevel);
  const { mode, network } = config.x402;
  const { recorded, ...state } = authorizationState(env.AUTHORIZATIONS, (error) =>
    logger.warn({ err: error }, 'could not release a payment lock; it expires on its own'),
  );
  const settle =
    mode.kind === 'self'
      ? settleThrough(env.SETTLERS, privateKeyToAccount(mode.settlerPrivateKey).address, {
          network,
          chain: createChainView(rpcClient(mode.rpcUrl)),
        })
      : undefined;
  const built = createService(config, {
    logger,
    reach: edgeReach(globalFetch),
    shared: settle ? { ...state, settle } : state,
    assets: bundledAsset,
    clientKey: connectingIpClient,
    rateBuckets: rememberRefusals(durableRateBuckets(env.RATE_BUCKETS)),
    // Without WATCH_SECRET_KEY the Worker sells no watches (the routes answer as unknown).
    ...(config.watches.secretKey
      ? { watches: durableWatchRuntime(env.WATCHES, env.WATCH_COUNTS, durableWalletLedger(env.WALLETS)) }
      : {}),
    // One isolate's counters: the fleet's figures are in Workers Analytics.
    metrics: createPrometheusMetrics({ processMetrics: false }),
  });
  service = { ...built, recorded };
  return service;
}

export default {
  async fetch(request: Request, env: EdgeEnv, ctx: ExecutionContext): Promise<Response> {
    let edge: EdgeService;
    try {
      edge = serviceFor(env, new URL(request.url).origin);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(error.message);
      const problem = problemBody({
        status: 500,
        code: PROBLEM_CODES.internalError,
        title: 'Internal error',
        detail: 'The service is misconfigured; its log names the variable. You were not charged.',
      });
      return new Response(JSON.stringify(problem), {
        status: 500,
        headers: { 'content-type': PROBLEM_MEDIA_TYPE },
      });
    }
    const answer = Promise.resolve(edge.app.fetch(request));
    // A client that goes away must not cut a paid call short: its settlement, the release of its
    // lock and the record of a result it never got all happen after the client is gone. A breaker's
    // control question the request started is seen to its answer too.
    ctx.waitUntil(answer.then(() => Promise.all([edge.recorded(), edge.controlsAnswered()]), noop));
    return sentAsEncoded(await answer);
  },
};

const noop = () => {};

/**
 * A body the app has already compressed (documents are served br/gzip) goes out as it is: by
 * default the runtime would compress it again under its `Content-Encoding`.
 */
function sentAsEncoded(response: Response): Response {
  if (!response.headers.has('content-encoding') || response.body === null) return response;
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    encodeBody: 'manual',
  } as ResponseInit);
}
