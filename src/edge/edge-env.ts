/**
 * The Worker's environment: the same variables as `npm start`, set as Worker vars and
 * secrets, beside the Durable Object bindings declared in `wrangler.jsonc`.
 */
import type { DurableObjectNamespace } from 'cloudflare:workers';
import type { AuthorizationObject } from './authorization-object.ts';
import type { DomainCheckObject } from './domain-check-object.ts';
import type { RateBucketObject } from './rate-bucket-object.ts';
import type { ReceiverHostObject } from './receiver-host-object.ts';
import type { SettlerObject } from './settler-object.ts';
import type { WatchCountObject } from './watch-count-object.ts';
import type { WalletObject } from './wallet-object.ts';
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
  /** One object per watched domain: the round's site-health check, shared by the domain's watches. */
  DOMAIN_CHECKS: DurableObjectNamespace<DomainCheckObject>;
  /** One object for the deployment: each watch's status as its object reported it, counted by status. */
  WATCH_COUNTS: DurableObjectNamespace<WatchCountObject>;
  /** One object per paying wallet (its watches) and per accepted sign-in nonce. */
  WALLETS: DurableObjectNamespace<WalletObject>;
  /** One object per webhook receiver host: the slots that bound concurrent attempts to it. */
  RECEIVER_HOSTS: DurableObjectNamespace<ReceiverHostObject>;
  [variable: string]: unknown;
}
