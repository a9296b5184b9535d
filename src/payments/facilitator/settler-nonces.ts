/**
 * Who hands out the account nonces of a settler wallet. Concurrent settlements from one key collide
 * on the nonce without a single owner: in one process that owner is viem's nonce
 * manager; across instances it is the shared store (`redis/settler-nonces.ts`), which allocates
 * them one by one without serializing the sends.
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
   * The transaction we signed at `nonce` is known never to be used (it reverted, or its authorization
   * expired unmined): the nonce is given back, so no later settlement waits behind it. Resolves once
   * that is so.
   */
  reissue(nonce: number): Promise<void>;
  /**
   * Fills the nonces other settlements were given and abandoned (their process died before the
   * send), which a transaction of ours may be waiting behind; nothing to do for a sole owner.
   */
  fillAbandoned(): Promise<void>;
}

/**
 * Makes the nonce owner of `wallet`, given the wallet client, how to read its pending nonce from
 * the chain, and how to send a transaction at `nonce` that moves nothing (a transfer of 0 ETH from
 * the settler to itself), to fill a nonce whose own transaction was abandoned.
 */
export type SettlerNoncesFor = (
  wallet: SettlerWallet,
  chain: {
    client: Client;
    pendingNonce: () => Promise<number>;
    fill: (nonce: number) => Promise<unknown>;
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
    // The manager numbers from the chain's pending count once reset: no gap is left behind.
    reissue: async () => manager.reset(wallet),
    fillAbandoned: async () => {},
  });
}
