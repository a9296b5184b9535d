/**
 * Base mainnet (chain id 8453) as viem defines it, pointed at a chosen JSON-RPC endpoint: the
 * facilitator and the embedded local chain (anvil started with chain id 8453) both talk "Base" to
 * an RPC of our choosing. Built from viem's OP Stack configuration rather than imported from
 * `viem/chains`, whose index loads all of viem's ~740 chain definitions: about 8 MiB of heap held
 * for the life of the process (test/unit/payments/base-chain.test.ts compares the two).
 */
import { type Chain, defineChain } from 'viem';
import { chainConfig } from 'viem/op-stack';

/** Ethereum mainnet, where Base's L1 contracts live. */
const SOURCE_ID = 1;

/** Base mainnet with its default RPC replaced by `rpcUrl`. */
export function baseChainAt(rpcUrl: URL): Chain {
  return defineChain({
    ...chainConfig,
    id: 8453,
    name: 'Base',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl.href] } },
    contracts: {
      ...chainConfig.contracts,
      multicall3: { address: '0xca11bde05977b3631167028862be2a173976ca11', blockCreated: 5022 },
    },
    sourceId: SOURCE_ID,
  });
}
