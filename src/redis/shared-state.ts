/** What every instance with `REDIS_URL` shares of its payments. */
import type { Logger } from 'pino';
import type { SharedPaymentState } from '../payments/payments.ts';
import { redisAuthorizations } from './authorizations.ts';
import type { SharedStore } from './connection.ts';
import { redisIdentifiedAnswers } from './identified-answers.ts';
import { redisSettlerNonces } from './settler-nonces.ts';

/**
 * The payment locks, the lost results, the answers kept for payment identifiers and
 * (`settlerNonces`, default true) the settler wallet's nonces, in `store`. An embedded local chain
 * is each process's own, as is then its settler's nonce sequence: two development instances sharing
 * a store must not share it.
 */
export function sharedPaymentState(
  store: SharedStore,
  logger: Logger,
  { settlerNonces = true } = {},
): SharedPaymentState {
  return {
    ...redisAuthorizations(store, logger),
    identified: redisIdentifiedAnswers(store),
    ...(settlerNonces ? { nonces: redisSettlerNonces(store, logger) } : {}),
    condition: store.condition,
  };
}
