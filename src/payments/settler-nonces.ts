/**
 * Who hands out the account nonces of a settler wallet. Concurrent settlements from one key collide
 * on the nonce without a single owner (x402.md §8.3): in one process that owner is viem's nonce
 * manager; across instances it is the shared store (`redis/settler-nonces.ts`).
 */
import type { Client } from 'viem';
import { createNonceManager, jsonRpc, type NonceManager } from 'viem/nonce';

export interface SettlerWallet {
  address: `0x${string}`;
  chainId: number;
}

/** The account nonces of one settler wallet. */
export interface SettlerNonces {
  /**
   * Runs `send` with the next account nonce; no other settlement of the wallet gets that nonce. The
   * nonce counts as used once `send` is called, whatever it does.
   */
  send<T>(send: (nonce: number) => Promise<T>): Promise<T>;
  /** A transaction we signed is known never to be used: the next nonce is read from the chain again. */
  reissue(): void;
}

/** Makes the nonce owner of `wallet`, given the wallet client and how to read its pending nonce from the chain. */
export type SettlerNoncesFor = (
  wallet: SettlerWallet,
  chain: { client: Client; pendingNonce: () => Promise<number> },
) => SettlerNonces;

// One nonce manager per RPC endpoint: shared by every facilitator settling there from this process,
// and not carried over to another chain (viem's global manager would keep a restarted anvil's nonces).
const nonceManagers = new Map<string, NonceManager>();

/** The nonce manager of this process for the RPC endpoint `rpcUrl`. */
export function nonceManagerFor(rpcUrl: URL): NonceManager {
  let manager = nonceManagers.get(rpcUrl.href);
  if (!manager) {
    manager = createNonceManager({ source: jsonRpc() });
    nonceManagers.set(rpcUrl.href, manager);
  }
  return manager;
}

/** In this process: viem's nonce manager `manager`. */
export function processNonces(manager: NonceManager): SettlerNoncesFor {
  return (wallet, { client }) => ({
    send: async (send) => send(await manager.consume({ ...wallet, client })),
    reissue: () => manager.reset(wallet),
  });
}
