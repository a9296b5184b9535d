import { base } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { baseChainAt } from '../../../src/payments/chain/base-chain.ts';

/** Base's contracts on Ethereum (its source chain): bridging and withdrawals, which nothing here does. */
const L1_CONTRACTS = ['disputeGameFactory', 'l1StandardBridge', 'l2OutputOracle', 'portal'];

/** A chain's fields but the ones named and `extend` (a closure defineChain makes per chain). */
const fieldsBut = (chain: object, names: string[]) =>
  Object.fromEntries(Object.entries(chain).filter(([name]) => ![...names, 'extend'].includes(name)));

describe('baseChainAt', () => {
  const rpcUrl = new URL('http://127.0.0.1:8545/');
  const chain = baseChainAt(rpcUrl);
  const apart = ['rpcUrls', 'blockExplorers', 'contracts'];

  it('is viem’s Base (id, currency, OP Stack formatters, serializers, block time) at the given RPC', () => {
    expect(Object.keys(fieldsBut(base, apart)).sort()).toEqual(
      ['blockTime', 'fees', 'formatters', 'id', 'name', 'nativeCurrency', 'serializers', 'sourceId'].sort(),
    );
    expect(fieldsBut(chain, apart)).toEqual(fieldsBut(base, apart));
    expect(chain.formatters).toBe(base.formatters);
    expect(chain.serializers).toBe(base.serializers);
    expect(chain.rpcUrls).toEqual({ default: { http: [rpcUrl.href] } });
    expect(chain.blockExplorers).toBeUndefined();
  });

  it('keeps viem’s L2 contracts, Multicall3 among them, and leaves out the L1 ones', () => {
    expect(chain.contracts).toEqual(fieldsBut(base.contracts, L1_CONTRACTS));
    expect(chain.contracts?.multicall3).toEqual(base.contracts.multicall3);
    expect(Object.keys(base.contracts)).toEqual(expect.arrayContaining(L1_CONTRACTS));
  });
});
