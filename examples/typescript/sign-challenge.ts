/**
 * Signs a 402 challenge: reads the PAYMENT-REQUIRED header value (base64 JSON) from the first
 * argument and prints the PAYMENT-SIGNATURE header value for the retry. Used by
 * examples/curl/pay-by-hand.sh; X402_PRIVATE_KEY holds the payer key.
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const [challenge] = process.argv.slice(2);
const key = process.env.X402_PRIVATE_KEY as `0x${string}` | undefined;
if (!challenge || !key)
  throw new Error('Usage: X402_PRIVATE_KEY=0x… node sign-challenge.ts <PAYMENT-REQUIRED value>');

const client = x402Client.fromConfig({
  schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(privateKeyToAccount(key)) }],
  spendControls: { maxAmountPerPayment: '$0.05' },
});
const payload = await client.createPaymentPayload(decodePaymentRequiredHeader(challenge));
process.stdout.write(encodePaymentSignatureHeader(payload));
