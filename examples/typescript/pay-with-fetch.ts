/**
 * Pays for one check with the official x402 client for fetch (`@x402/fetch`), then prints the
 * result and the settlement receipt.
 *
 *   X402_PRIVATE_KEY=0x… BASE_URL=http://localhost:8080 npm exec -- node examples/typescript/pay-with-fetch.ts cert healthy-shop.com
 *
 * Node.js 24 (`npm exec -- node` in this repository) runs this file as it is.
 * Dependencies: @x402/fetch @x402/core @x402/evm viem.
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

const [check = 'cert', domain = 'example.com'] = process.argv.slice(2);
const baseUrl = process.env.BASE_URL ?? 'http://localhost:8080';
const key = process.env.X402_PRIVATE_KEY as `0x${string}` | undefined;
if (!key) throw new Error('Set X402_PRIVATE_KEY to the payer key (0x + 64 hex digits).');

// Base mainnet is eip155:8453; the spend cap refuses any price above $0.05 before signing.
const client = x402Client.fromConfig({
  schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(privateKeyToAccount(key)) }],
  spendControls: { maxAmountPerPayment: '$0.05' },
});
const payingFetch = wrapFetchWithPayment(fetch, client);

const url = new URL(`${baseUrl.replace(/\/$/, '')}/v1/${check}`);
url.searchParams.set('domain', domain);
const response = await payingFetch(url);
const body: unknown = await response.json();
if (!response.ok) {
  console.error(`HTTP ${response.status}`, body);
  process.exit(1);
}
console.log(JSON.stringify(body, null, 2));
const receipt = response.headers.get('PAYMENT-RESPONSE');
if (receipt) {
  const { transaction, payer, network } = decodePaymentResponseHeader(receipt);
  console.error(`Paid: transaction ${transaction} from ${payer} on ${network}`);
}
