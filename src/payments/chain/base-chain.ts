/**
 * viem's `base` chain definition pointed at a chosen JSON-RPC endpoint: the facilitator and the
 * embedded local chain (anvil started with chain id 8453) both talk "Base" to an RPC of our choosing.
 */
import { type Chain, defineChain } from 'viem';
import { base } from 'viem/chains';

/** Base mainnet (chain id 8453) with its default RPC replaced by `rpcUrl`. */
export function baseChainAt(rpcUrl: URL): Chain {
  return defineChain({ ...base, rpcUrls: { default: { http: [rpcUrl.href] } } });
}
