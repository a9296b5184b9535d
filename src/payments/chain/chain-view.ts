/**
 * What the chain says about one EIP-3009 authorization: the read-only questions settlement asks
 * when a facilitator cannot tell whether a payment went through.
 */
import { type Chain, type Client, createPublicClient, http, parseAbi, type Transport } from 'viem';
import {
  getBlock,
  getTransactionReceipt,
  readContract,
  sendRawTransaction,
  verifyMessage,
} from 'viem/actions';
import { baseChainAt } from './base-chain.ts';
import { deadlineFetch } from './rpc-deadline.ts';
import { isRpcFault } from './rpc-faults.ts';

/** One JSON-RPC call may take this long before it counts as failed (viem's default is 10 s × 4 tries). */
export const RPC_CALL_TIMEOUT_MS = 3_000;

const EIP3009_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

export type ReceiptStatus = 'success' | 'reverted' | 'not_found';

/** The chain as settlement needs to see it. Every method throws when the RPC cannot answer. */
export interface ChainView {
  /** The mined status of `hash`, or `not_found` while it is unknown or pending. */
  receiptStatus(hash: `0x${string}`): Promise<ReceiptStatus>;
  /** EIP-3009 `authorizationState(from, nonce)`: true once the authorization was used (or cancelled). */
  authorizationUsed(asset: `0x${string}`, from: `0x${string}`, nonce: `0x${string}`): Promise<boolean>;
  /** The timestamp of the latest block, in seconds. */
  latestBlockTime(): Promise<bigint>;
  /** The chain's time now, in seconds: its pending block's timestamp, or the latest block's where there is none. */
  chainTime(): Promise<bigint>;
  /** Hands a transaction this process signed to the node again; idempotent (same hash). */
  rebroadcast(raw: `0x${string}`): Promise<void>;
  /**
   * With the settler's key in this process: true once a transaction of the settler at account nonce
   * `nonce` is mined, whichever transaction it was.
   */
  nonceMined?(nonce: number): Promise<boolean>;
  /** Whether `address` signed `message` (EIP-191 for an account, EIP-1271 for a contract, read on chain). */
  verifyMessage(args: {
    address: `0x${string}`;
    message: string;
    signature: `0x${string}`;
  }): Promise<boolean>;
}

/**
 * The HTTP transport to `rpcUrl`: a short per-call timeout, one retry, and the deadline of the
 * settlement a call belongs to (`rpc-deadline.ts`).
 */
export function rpcTransport(rpcUrl: URL) {
  return http(rpcUrl.href, { timeout: RPC_CALL_TIMEOUT_MS, retryCount: 1, fetchFn: deadlineFetch });
}

/** A viem client on `rpcUrl` over `rpcTransport`. */
export function rpcClient(rpcUrl: URL): Client<Transport, Chain> {
  return createPublicClient({ chain: baseChainAt(rpcUrl), transport: rpcTransport(rpcUrl) });
}

export function createChainView(client: Client<Transport, Chain>): ChainView {
  return {
    async receiptStatus(hash) {
      try {
        const receipt = await getTransactionReceipt(client, { hash });
        return receipt.status;
      } catch (error) {
        if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') return 'not_found';
        throw error;
      }
    },
    authorizationUsed: (asset, from, nonce) =>
      readContract(client, {
        address: asset,
        abi: EIP3009_ABI,
        functionName: 'authorizationState',
        args: [from, nonce],
      }),
    latestBlockTime: async () => (await getBlock(client, { blockTag: 'latest' })).timestamp,
    chainTime: async () => {
      try {
        return (await getBlock(client, { blockTag: 'pending' })).timestamp;
      } catch (error) {
        if (isRpcFault(error)) throw error;
        // A node that keeps no pending block: the latest one is at most a block interval behind.
        return (await getBlock(client, { blockTag: 'latest' })).timestamp;
      }
    },
    verifyMessage: (args) => verifyMessage(client, args),
    async rebroadcast(raw) {
      try {
        await sendRawTransaction(client, { serializedTransaction: raw });
      } catch (error) {
        // "already known" / "nonce too low" mean the node has it or mined it: what a rebroadcast wants.
        if (error instanceof Error && /already known|nonce too low|known transaction/i.test(error.message))
          return;
        throw error;
      }
    },
  };
}
