/**
 * What `REDIS_URL` gives the Node entry: one connection, and through it the payment state, the
 * free-work buckets, the CT answers and the watches (one store, one schedule) every instance
 * shares. `main.ts` loads this module only when the variable is set, so a single instance never
 * loads ioredis (about 18 MiB at idle).
 */
import type { Logger } from 'pino';
import { rememberRefusals } from '../ops/rate-buckets.ts';
import type { Platform } from '../service.ts';
import { connectSharedStore } from './connection.ts';
import { redisRateBuckets } from './rate-buckets.ts';
import { redisSharedAnswers } from './shared-answers.ts';
import { storeWatchRuntime } from '../watches/runtime.ts';
import { sharedPaymentState } from './shared-state.ts';
import { redisRoundBoard } from './watch-rounds.ts';
import { redisWalletLedger } from './wallet-ledger.ts';
import { redisWatchStore } from './watch-store.ts';

/**
 * The fleet's claims: each instance takes few watches or deliveries at a time (the rest stay for
 * the others) under a lease longer than a batch takes — 16 watches at 4 checks at once within a
 * check's 12 s budget each, or 16 deliveries of 15 s at most at once — and short enough that the
 * work of an instance killed mid-way is taken up again within a minute.
 */
const FLEET_CLAIMS = { batch: 16, leaseMs: 60_000 };

export interface RedisPlatform {
  /** The parts of the service's `Platform` that Redis supplies. */
  parts: Required<Pick<Platform, 'shared' | 'rateBuckets' | 'sharedAnswers' | 'watches'>>;
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
      // A refused client is refused in this instance until its next token is due, without asking Redis.
      rateBuckets: rememberRefusals(redisRateBuckets(store)),
      sharedAnswers: redisSharedAnswers(store, logger),
      watches: (parts) => {
        // One check of a domain per round, fleet-wide.
        const rounds = redisRoundBoard(store, logger);
        const runtime = storeWatchRuntime(
          redisWatchStore(store),
          FLEET_CLAIMS,
          rounds,
          redisWalletLedger(store.redis),
        )(parts);
        // The loops start once the connection is up: a round sent before would fail and sleep.
        const start = () => (store.reachable() ? runtime.start() : store.redis.once('ready', runtime.start));
        return { ...runtime, start };
      },
    },
    refusal: () => store.refusal(),
    close: () => store.close(),
  };
}
