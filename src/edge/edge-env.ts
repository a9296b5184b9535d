/**
 * The Worker's environment: the same variables as `npm start`, set as Worker vars and
 * secrets, beside the Durable Object bindings declared in `wrangler.jsonc`.
 */
import type { DurableObjectNamespace } from 'cloudflare:workers';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import type { AuthorizationObject } from './authorization-object.ts';
import type { RateBucketObject } from './rate-bucket-object.ts';
import type { SettlerObject } from './settler-object.ts';
import type { WatchObject } from './watch-object.ts';

export interface EdgeEnv {
  /** One object per payment authorization: its in-flight lock and lost result. */
  AUTHORIZATIONS: DurableObjectNamespace<AuthorizationObject>;
  /** One object per settler wallet (self-settlement). */
  SETTLERS: DurableObjectNamespace<SettlerObject>;
  /** One object per client address (IPv6: per /64): its free-work token bucket. */
  RATE_BUCKETS: DurableObjectNamespace<RateBucketObject>;
  /** One object per watch: its record, events, deliveries, and the alarm that runs its schedule. */
  WATCHES: DurableObjectNamespace<WatchObject>;
  [variable: string]: unknown;
}

/**
 * The configuration from the Worker's variables. `PUBLIC_BASE_URL` defaults to `origin`, where the
 * Worker was reached (there is no port to derive it from). There is no embedded chain at the edge:
 * a facilitator or self-settlement must be configured.
 */
export function edgeConfig(env: EdgeEnv, origin?: string): Config {
  const variables = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const config = loadConfig({ PUBLIC_BASE_URL: origin, ...variables });
  if (config.x402.mode.kind === 'local-chain') {
    throw new ConfigError(
      'Invalid configuration: X402_FACILITATOR_URL or X402_RPC_URL+X402_SETTLER_PRIVATE_KEY is required on Workers (the embedded local chain runs only under Node; `npm run edge:dev` starts one for you).',
    );
  }
  return config;
}
