/**
 * The Worker's `WalletLedger` (`watches/wallet-ledger.ts`) in Durable Objects: one object per paying
 * wallet (named `wallet:{address}`) keeps the watches it bought under keys that sort newest last,
 * and one object per sign-in nonce (named `nonce:{nonce}`) remembers that it was accepted. An
 * object runs one call at a time between storage calls, so a nonce is accepted once fleet-wide.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import type { LedgerEntry, WalletLedger } from '../watches/wallet-ledger.ts';

const ACCEPTED = 'accepted';
const BOUND_TO = 'bound_to';
const entryKey = ({ boughtAt, id }: LedgerEntry) => `watch:${String(boughtAt).padStart(15, '0')}:${id}`;

export class WalletObject extends DurableObject {
  async add(entry: LedgerEntry): Promise<void> {
    await this.ctx.storage.put(entryKey(entry), entry);
  }

  /** Up to `limit` entries older than `after`, newest first. */
  async list(after: LedgerEntry | null, limit: number): Promise<LedgerEntry[]> {
    const entries = await this.ctx.storage.list<LedgerEntry>({
      prefix: 'watch:',
      reverse: true,
      limit,
      ...(after ? { end: entryKey(after) } : {}),
    });
    return [...entries.values()];
  }

  /**
   * True the first time, and again for the payment it was first accepted for; the object forgets
   * the nonce (deletes all it holds) once it has expired.
   */
  async acceptNonce(untilMs: number, boundTo?: string): Promise<boolean> {
    const { storage } = this.ctx;
    const holder = await this.nonceHolder();
    if (holder !== null) return holder !== '' && holder === boundTo;
    await storage.put(boundTo ? { [ACCEPTED]: untilMs, [BOUND_TO]: boundTo } : { [ACCEPTED]: untilMs });
    await storage.setAlarm(untilMs);
    return true;
  }

  /** The payment the nonce is bound to, '' when unbound, null when never accepted (or forgotten). */
  async nonceHolder(): Promise<string | null> {
    const { storage } = this.ctx;
    if ((await storage.get(ACCEPTED)) === undefined) return null;
    return (await storage.get<string>(BOUND_TO)) ?? '';
  }

  async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}

export function durableWalletLedger(namespace: DurableObjectNamespace<WalletObject>): WalletLedger {
  const named = (name: string) => namespace.get(namespace.idFromName(name));
  return {
    add: (payer, entry) => named(`wallet:${payer}`).add(entry),
    list: (payer, after, limit) => named(`wallet:${payer}`).list(after, limit),
    acceptNonce: (nonce, untilMs, boundTo) => named(`nonce:${nonce}`).acceptNonce(untilMs, boundTo),
    nonceHolder: (nonce) => named(`nonce:${nonce}`).nonceHolder(),
  };
}
