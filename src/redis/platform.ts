/**
 * What `REDIS_URL` gives the Node entry: one connection, and through it the payment state, the
 * free-work buckets and the CT answers every instance shares. `main.ts` loads this module only
 * when the variable is set, so a single instance never loads ioredis (about 18 MiB at idle).
 */
import type { Logger } from 'pino';
import type { Platform } from '../service.ts';
import { connectSharedStore } from './connection.ts';
import { redisRateBuckets } from './rate-buckets.ts';
import { redisSharedAnswers } from './shared-answers.ts';
import { sharedPaymentState } from './shared-state.ts';

export interface RedisPlatform {
  /** The parts of the service's `Platform` that Redis supplies. */
  parts: Required<Pick<Platform, 'shared' | 'rateBuckets' | 'sharedAnswers'>>;
  /** Why the server must not be used (an eviction policy that could drop payment state), or null. */
  refusal(): Promise<string | null>;
  /** Closes the connection (at stop). */
  close(): Promise<void>;
}

export function redisPlatform(url: URL, logger: Logger, options: { settlerNonces: boolean }): RedisPlatform {
  const store = connectSharedStore(url, logger);
  return {
    parts: {
      shared: sharedPaymentState(store, logger, options),
      rateBuckets: redisRateBuckets(store),
      sharedAnswers: redisSharedAnswers(store, logger),
    },
    refusal: () => store.refusal(),
    close: () => store.close(),
  };
}
