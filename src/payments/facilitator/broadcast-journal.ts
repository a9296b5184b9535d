/**
 * The settlement transactions this process signed, by payment key (`payer:nonce`). The hash is
 * known before the transaction is sent, so a send whose answer was lost can still be looked up on
 * chain and re-sent, instead of being mistaken for "nothing happened".
 */

export interface Broadcast {
  hash: `0x${string}`;
  /** The signed transaction; never logged or answered. */
  raw: `0x${string}`;
  /** The settler's account nonce it was signed with. */
  nonce: number;
}

export interface BroadcastJournal {
  record(key: string, broadcast: Broadcast): void;
  /** The entry for `key`, removed: each settlement reads its own once. */
  take(key: string): Broadcast | undefined;
}

export function createBroadcastJournal(): BroadcastJournal {
  const entries = new Map<string, Broadcast>();
  return {
    record: (key, broadcast) => void entries.set(key, broadcast),
    take(key) {
      const entry = entries.get(key);
      entries.delete(key);
      return entry;
    },
  };
}
