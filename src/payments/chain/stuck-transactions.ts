/**
 * The embedded chain's repair for a transaction anvil leaves waiting for good. Mining each
 * transaction as it arrives, anvil (1.7) can file a transaction that arrived while the one before it
 * was being mined among those waiting for an earlier nonce, where it stays once that nonce is mined:
 * it is next, anvil answers "already imported" to it again, and every later transaction of the
 * account waits behind it (35 settlements of a fleet held 50 s, until their authorizations ran out).
 * A look finds an account whose lowest waiting nonce is its next one; if it was so at the look before
 * too, the account's pooled transactions are taken out and handed in again as they were signed (same
 * hashes, nonce order), so anvil judges them afresh and mines them.
 */
import type { TestClient } from 'viem';
import { getTransactionCount, getTxpoolContent } from 'viem/actions';

/** A transaction as `txpool_content` lists it, by account then nonce. */
type Pooled = Record<`0x${string}`, Record<string, { hash: `0x${string}` }>>;

/**
 * One look at the pool (`client` on anvil): resolves with the accounts whose pooled transactions it
 * handed in again. Keep the function: it remembers what the look before found.
 */
export function stuckTransactionRepair(client: TestClient<'anvil'>): () => Promise<`0x${string}`[]> {
  // Account → the hash at its lowest waiting nonce when that nonce was its next one.
  let suspects = new Map<`0x${string}`, `0x${string}`>();
  return async () => {
    const { pending, queued } = (await getTxpoolContent(client)) as { pending: Pooled; queued: Pooled };
    const found = new Map<`0x${string}`, `0x${string}`>();
    for (const [account, waiting] of Object.entries(queued) as [`0x${string}`, Pooled[`0x${string}`]][]) {
      const lowest = Math.min(...Object.keys(waiting).map(Number));
      const next = await getTransactionCount(client, { address: account, blockTag: 'pending' });
      if (lowest === next) found.set(account, (waiting[String(lowest)] as { hash: `0x${string}` }).hash);
    }
    const stuck = [...found].filter(([account, hash]) => suspects.get(account) === hash).map(([a]) => a);
    suspects = found;
    for (const account of stuck)
      await handInAgain(client, account, { ...pending[account], ...queued[account] });
    return stuck;
  };
}

async function handInAgain(
  client: TestClient<'anvil'>,
  account: `0x${string}`,
  pooled: Pooled[`0x${string}`],
): Promise<void> {
  const hashes = Object.entries(pooled)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, { hash }]) => hash);
  const raws: `0x${string}`[] = [];
  for (const hash of hashes) {
    const raw = (await client.request({
      method: 'eth_getRawTransactionByHash' as never,
      params: [hash] as never,
    })) as `0x${string}` | null;
    if (raw) raws.push(raw);
  }
  await client.request({ method: 'anvil_removePoolTransactions' as never, params: [account] as never });
  // A transaction mined or handed in by its sender meanwhile is refused: nothing is lost by that.
  for (const raw of raws)
    await client
      .request({ method: 'eth_sendRawTransaction' as never, params: [raw] as never })
      .catch(() => undefined);
}
