/**
 * The fleet's round board (`src/watches/round-check.ts`): a domain's round outcome is a shared
 * answer (`answer:round:{domain}`, kept for the round's window, read back with suspicion) and its
 * single flight an in-flight lock (`lock:round:{domain}`, a lease its holder renews), as CT answers
 * and payment locks are shared. Both are caches with a TTL; no watch state lives here.
 */
import type { Logger } from 'pino';
import type { RoundBoard } from '../watches/round-check.ts';
import { redisAuthorizations } from './authorizations.ts';
import type { SharedStore } from './connection.ts';
import { redisSharedAnswers } from './shared-answers.ts';

export function redisRoundBoard(store: SharedStore, logger: Logger): RoundBoard {
  return { outcomes: redisSharedAnswers(store, logger), leases: redisAuthorizations(store, logger).lock };
}
