/**
 * The wallet as the account (contract §6.1): which watches each paying wallet bought, newest first,
 * and the sign-in nonces already accepted. Every runtime keeps one where its watches are: SQLite on
 * one Node instance, Redis for a fleet, Durable Objects on Workers.
 *
 * A purchase is written to the ledger before its watch is stored (`recordingPayers`, `runtime.ts`),
 * so no watch exists that its wallet cannot find; an entry whose watch was never paid for
 * (removed, or still pending) is skipped when listed.
 */
/** Where a listing goes on from: the last entry of the previous page. */
export interface LedgerEntry {
  id: string;
  /** When it was bought (epoch ms). */
  boughtAt: number;
}

export interface WalletLedger {
  /** Notes that `payer` (lower-case) bought watch `id` at `boughtAt`; idempotent. */
  add(payer: string, entry: LedgerEntry): Promise<void>;
  /** Up to `limit` of the wallet's entries older than `after` (or from the newest), newest first. */
  list(payer: string, after: LedgerEntry | null, limit: number): Promise<LedgerEntry[]>;
  /**
   * Accepts a sign-in nonce once: true the first time it is presented on any instance, false ever
   * after; it is remembered at least until `untilMs`, when the nonce itself has expired. A nonce
   * accepted `boundTo` a payment (its authorization's key) is accepted again for that same payment,
   * and only for it: the same paid call sent again finds its result, no other call gets in.
   */
  acceptNonce(nonce: string, untilMs: number, boundTo?: string): Promise<boolean>;
  /** Who holds an accepted nonce: the payment it is bound to, '' when unbound, null when never accepted. */
  nonceHolder(nonce: string): Promise<string | null>;
}

const CURSOR = /^([0-9]{1,15})\.(wat_[A-Za-z0-9_-]{1,40})$/;

export function encodeCursor(entry: LedgerEntry): string {
  return `${entry.boughtAt}.${entry.id}`;
}

/** The entry a `?cursor=` names; null when it is not one this service gave out. */
export function decodeCursor(cursor: string): LedgerEntry | null {
  const match = CURSOR.exec(cursor);
  return match?.[1] && match[2] ? { boughtAt: Number(match[1]), id: match[2] } : null;
}

/** Whether `entry` comes after `after` in a newest-first listing (ties broken by id, descending). */
export function isOlder(entry: LedgerEntry, after: LedgerEntry | null): boolean {
  if (!after) return true;
  return entry.boughtAt < after.boughtAt || (entry.boughtAt === after.boughtAt && entry.id < after.id);
}
