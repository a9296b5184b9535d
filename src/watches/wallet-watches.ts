/**
 * The watches a signed-in wallet bought (`GET /v1/watches`, MCP `watch_list`): newest first, a page
 * at a time, read from the runtime's wallet ledger (`wallet-ledger.ts`).
 */
import type { WatchRecord } from './model.ts';
import type { WatchService } from './ports.ts';
import { decodeCursor, encodeCursor, type WalletLedger } from './wallet-ledger.ts';

export const WALLET_PAGE_SIZE = 20;

export type WalletPage = { ok: true; watches: WatchRecord[]; nextCursor: string | null } | { ok: false };

/** A page of `payer`'s watches after `cursor` (undefined: from the newest); not ok for a cursor not ours. */
export async function walletWatches(
  service: Pick<WatchService, 'watch'>,
  ledger: Pick<WalletLedger, 'list'>,
  payer: `0x${string}`,
  cursor: string | undefined,
): Promise<WalletPage> {
  const after = cursor === undefined ? null : decodeCursor(cursor);
  if (cursor !== undefined && after === null) return { ok: false };
  const entries = await ledger.list(payer, after, WALLET_PAGE_SIZE);
  const records = await Promise.all(entries.map((entry) => service.watch(entry.id)));
  // Entries whose purchase never settled (removed, or still pending) and ids of another wallet are skipped.
  const watches = records.filter((watch): watch is WatchRecord => watch !== null && watch.payer === payer);
  const last = entries.at(-1);
  return {
    ok: true,
    watches,
    nextCursor: last && entries.length === WALLET_PAGE_SIZE ? encodeCursor(last) : null,
  };
}
