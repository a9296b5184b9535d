import { base } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { baseChainAt } from '../../../src/payments/chain/base-chain.ts';

/** Base's contracts on Ethereum (its source chain): bridging and withdrawals, which nothing here does. */
const L1_CONTRACTS = ['disputeGameFactory', 'l1StandardBridge', 'l2OutputOracle', 'portal'];

describe('baseChainAt', () => {
  const rpcUrl = new URL('http://127.0.0.1:8545/');
  const chain = baseChainAt(rpcUrl);

  it('is viem’s Base (id, currency, OP Stack formatters, serializers, fees) at the given RPC', () => {
    // `extend` is a closure defineChain makes per chain.
    const { rpcUrls, blockExplorers, contracts, extend: _extend, ...rest } = chain;
    const {
      rpcUrls: _rpc,
      blockExplorers: _explorers,
      contracts: _contracts,
      extend: _viemExtend,
      ...viemRest
    } = base;
    expect(Object.keys(viemRest).sort()).toEqual(
      ['blockTime', 'fees', 'formatters', 'id', 'name', 'nativeCurrency', 'serializers', 'sourceId'].sort(),
    );
    expect(rest).toEqual(viemRest);
    expect(rest.formatters).toBe(base.formatters);
    expect(rest.serializers).toBe(base.serializers);
    expect(rpcUrls).toEqual({ default: { http: [rpcUrl.href] } });
    expect(blockExplorers).toBeUndefined();
    expect(contracts).toEqual(
      Object.fromEntries(Object.entries(base.contracts).filter(([name]) => !L1_CONTRACTS.includes(name))),
    );
  });

  it('keeps viem’s L2 contracts, Multicall3 among them', () => {
    expect(chain.contracts?.multicall3).toEqual(base.contracts.multicall3);
    expect(Object.keys(chain.contracts ?? {}).length).toBe(
      Object.keys(base.contracts).length - L1_CONTRACTS.length,
    );
  });
});
