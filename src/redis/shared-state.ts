/** What every instance with `REDIS_URL` shares of its payments. */
import type { Logger } from 'pino';
import type { SharedPaymentState } from '../payments/payments.ts';
import { redisAuthorizations } from './authorizations.ts';
import type { SharedStore } from './connection.ts';
import { redisSettlerNonces } from './settler-nonces.ts';

/** The payment locks, the lost results and the settler wallet's nonces, in `store`. */
export function sharedPaymentState(store: SharedStore, logger: Logger): SharedPaymentState {
  return {
    ...redisAuthorizations(store, logger),
    nonces: redisSettlerNonces(store, logger),
    reachable: store.reachable,
  };
}
