/**
 * Calls a paid MCP tool with the MCP TypeScript SDK, paying through x402 in `_meta`:
 *   1. `tools/call` without payment → an isError result whose structuredContent is the x402
 *      PaymentRequired (the same JSON is in content[0].text);
 *   2. sign it with the official x402 client;
 *   3. call again with the PaymentPayload in `params._meta["x402/payment"]`;
 *   4. read the receipt from the result's `_meta["x402/payment-response"]`.
 *
 *   X402_PRIVATE_KEY=0x… BASE_URL=http://localhost:8080 npm exec -- node examples/typescript/mcp-pay.ts check_cert healthy-shop.com
 *
 * Dependencies: @modelcontextprotocol/sdk @x402/core @x402/evm viem.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const [tool = 'check_cert', domain = 'example.com'] = process.argv.slice(2);
const baseUrl = process.env.BASE_URL ?? 'http://localhost:8080';
const key = process.env.X402_PRIVATE_KEY as `0x${string}` | undefined;
if (!key) throw new Error('Set X402_PRIVATE_KEY to the payer key (0x + 64 hex digits).');

const mcp = new Client({ name: 'website-checks-example', version: '1.0.0' });
await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl.replace(/\/$/, '')}/mcp`)));

const unpaid = await mcp.callTool({ name: tool, arguments: { domain } });
const challenge = unpaid.structuredContent as PaymentRequired | undefined;
if (!unpaid.isError || !challenge?.accepts)
  throw new Error(`Expected a payment request, got ${JSON.stringify(unpaid)}`);
console.error(`${tool} costs ${challenge.accepts[0]?.amount} atomic USDC units; paying…`);

const payer = x402Client.fromConfig({
  schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(privateKeyToAccount(key)) }],
  spendControls: { maxAmountPerPayment: '$0.05' },
});
const payment = await payer.createPaymentPayload(challenge);
const paid = await mcp.callTool({ name: tool, arguments: { domain }, _meta: { 'x402/payment': payment } });
if (paid.isError) throw new Error(`Payment refused: ${JSON.stringify(paid.structuredContent)}`);

console.log(JSON.stringify(paid.structuredContent, null, 2));
const receipt = paid._meta?.['x402/payment-response'] as { transaction: string; network: string } | undefined;
console.error(`Paid: transaction ${receipt?.transaction} on ${receipt?.network}`);
await mcp.close();
