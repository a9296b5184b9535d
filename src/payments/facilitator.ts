/**
 * The x402 facilitator for each payment mode (contract §1): a remote HTTP facilitator, or an
 * in-process one that verifies and settles itself over JSON-RPC (self mode, and the local chain).
 */

import { x402Facilitator } from '@x402/core/facilitator';
import type { FacilitatorClient } from '@x402/core/server';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { Network, SupportedResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createNonceManager, jsonRpc, type NonceManager } from 'viem/nonce';
import type { Config } from '../config.ts';
import { baseChainAt } from './base-chain.ts';
import type { LocalChain } from './local-chain.ts';

// The local chain mines each transaction at once; poll its receipts often rather than every second.
const LOCAL_RECEIPT_POLL_MS = 50;

/**
 * The facilitator the resource server talks to, chosen by `config.x402.mode`:
 * - `remote`: `HTTPFacilitatorClient` on `X402_FACILITATOR_URL`, sending `X402_FACILITATOR_AUTH_HEADER`
 *   (if set) on verify, settle and supported;
 * - `self`: an in-process facilitator settling on `X402_RPC_URL`, gas paid by `X402_SETTLER_PRIVATE_KEY`;
 * - `local-chain`: the same, on `local` (required in this mode) with its settler key.
 */
export function createFacilitatorClient(config: Config, local?: LocalChain): FacilitatorClient {
  const mode = config.x402.mode;
  switch (mode.kind) {
    case 'remote': {
      const header = mode.authHeader;
      if (!header) return new HTTPFacilitatorClient({ url: mode.facilitatorUrl.href });
      const headers = { [header.name]: header.value };
      return new HTTPFacilitatorClient({
        url: mode.facilitatorUrl.href,
        // Keyed by path, as HTTPFacilitatorClient requires (a flat object throws).
        createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
      });
    }
    case 'self':
      return createInProcessFacilitator({
        network: config.x402.network,
        rpcUrl: mode.rpcUrl,
        settlerPrivateKey: mode.settlerPrivateKey,
      });
    case 'local-chain':
      if (!local) throw new Error('payment mode local-chain needs a started LocalChain (startLocalChain)');
      return createInProcessFacilitator({
        network: config.x402.network,
        rpcUrl: local.rpcUrl,
        settlerPrivateKey: local.settler.privateKey,
        receiptPollMs: LOCAL_RECEIPT_POLL_MS,
      });
  }
}

interface InProcessOptions {
  network: Network;
  rpcUrl: URL;
  /** Pays the gas of every settlement; needs ETH on the chain. */
  settlerPrivateKey: `0x${string}`;
  /** How often to poll for a settlement's receipt; default viem's, from the chain's block time. */
  receiptPollMs?: number;
}

/** An in-process x402 facilitator for the exact EVM scheme, wrapped as a `FacilitatorClient`. */
export function createInProcessFacilitator(options: InProcessOptions): FacilitatorClient {
  const { network, rpcUrl, settlerPrivateKey, receiptPollMs } = options;
  // Concurrent settlements from one key collide on the account nonce without a manager (x402.md §8.3).
  const account = privateKeyToAccount(settlerPrivateKey, { nonceManager: nonceManagerFor(rpcUrl) });
  const wallet = createWalletClient({
    account,
    chain: baseChainAt(rpcUrl),
    transport: http(rpcUrl.href),
    ...(receiptPollMs === undefined ? {} : { pollingInterval: receiptPollMs }),
  }).extend(publicActions);

  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => wallet.getCode(args),
    readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] }),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
    writeContract: (args) => wallet.writeContract(args as Parameters<typeof wallet.writeContract>[0]),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  });

  const facilitator = new x402Facilitator();
  // Re-simulating in settle spends one eth_call to avoid paying gas for a transfer that would revert.
  registerExactEvmScheme(facilitator, { signer, networks: network, simulateInSettle: true });

  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    // The facilitator answers synchronously and types `network` as a plain string.
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

// One nonce manager per RPC endpoint: shared by every facilitator settling there from this process,
// and not carried over to another chain (viem's global manager would keep a restarted anvil's nonces).
const nonceManagers = new Map<string, NonceManager>();

function nonceManagerFor(rpcUrl: URL): NonceManager {
  let manager = nonceManagers.get(rpcUrl.href);
  if (!manager) {
    manager = createNonceManager({ source: jsonRpc() });
    nonceManagers.set(rpcUrl.href, manager);
  }
  return manager;
}
