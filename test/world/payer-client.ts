/** The official x402 client paying as one account on the local chain (Base, 8453). */
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';

export function clientFor(payer: PrivateKeyAccount): x402Client {
  return x402Client.fromConfig({ schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(payer) }] });
}

/** `fetch` that pays as `payer` with the official `@x402/fetch` wrapper. */
export function payingFetchFor(payer: PrivateKeyAccount): typeof fetch {
  return wrapFetchWithPayment(fetch, clientFor(payer));
}
