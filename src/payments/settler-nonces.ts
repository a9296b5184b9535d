/**
 * Who hands out the account nonces of a settler wallet. Concurrent settlements from one key collide
 * on the nonce without a single owner: in one process that owner is viem's nonce
 * manager; across instances it is the shared store (`redis/settler-nonces.ts`).
 */
import type { Client } from 'viem';
import { createNonceManager, jsonRpc, type NonceManager } from 'viem/nonce';

export interface SettlerWallet {
  address: `0x${string}`;
  chainId: number;
}

/** A signed transaction, as the node takes it. */
export type SignedTransaction = `0x${string}`;

/** The account nonces of one settler wallet. */
export interface SettlerNonces {
  /**
   * Signs a transaction with the next account nonce (`sign`) and hands it to the node (`broadcast`);
   * no other settlement of the wallet gets that nonce, which counts as used once `sign` is called.
   * Resolves with what was sent; rejects when the nonce could not be had or the broadcast failed.
   */
  send(
    sign: (nonce: number) => Promise<SignedTransaction>,
    broadcast: (raw: SignedTransaction) => Promise<unknown>,
  ): Promise<SignedTransaction>;
  /**
   * A transaction we signed is known never to be used: the next nonce is read from the chain again.
   * Resolves once that is so.
   */
  reissue(): Promise<void>;
}

/**
 * Makes the nonce owner of `wallet`, given the wallet client, how to read its pending nonce from
 * the chain, and how to sign a transaction at `nonce` that moves nothing (a transfer of 0 ETH from
 * the settler to itself), to fill a nonce whose own transaction was abandoned.
 */
export type SettlerNoncesFor = (
  wallet: SettlerWallet,
  chain: {
    client: Client;
    pendingNonce: () => Promise<number>;
    filler: (nonce: number) => Promise<SignedTransaction>;
  },
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
    async send(sign, broadcast) {
      const raw = await sign(await manager.consume({ ...wallet, client }));
      await broadcast(raw);
      return raw;
    },
    reissue: async () => manager.reset(wallet),
  });
}
