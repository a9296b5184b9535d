/**
 * At the start of an instance that settles alone (no `REDIS_URL`): a settler wallet with pending
 * transactions this fresh process cannot have sent is being used by someone else at the same time,
 * and the two will hand the node the same account nonces.
 */
import type { Logger } from 'pino';
import { getTransactionCount } from 'viem/actions';
import { privateKeyToAccount } from 'viem/accounts';
import { rpcClient } from '../chain/chain-view.ts';

export const FOREIGN_PENDING_WARNING =
  'the settler wallet has pending transactions this instance did not send: another instance or program settles with the same X402_SETTLER_PRIVATE_KEY, and their account nonces will collide (settlements lost after the full deadline); give instances that share a settler key REDIS_URL, or each its own key';

/** Logs `FOREIGN_PENDING_WARNING` once when the wallet's pending nonce is ahead of its latest. */
export async function warnOfForeignPending(
  rpcUrl: URL,
  settlerPrivateKey: `0x${string}`,
  logger: Logger,
): Promise<void> {
  const client = rpcClient(rpcUrl);
  const { address } = privateKeyToAccount(settlerPrivateKey);
  try {
    const [pending, latest] = await Promise.all([
      getTransactionCount(client, { address, blockTag: 'pending' }),
      getTransactionCount(client, { address, blockTag: 'latest' }),
    ]);
    if (pending > latest)
      logger.warn({ wallet: address, pending: pending - latest }, FOREIGN_PENDING_WARNING);
  } catch {
    // The RPC is not answering yet; settlement has its own answers for that.
  }
}
