/**
 * The paid-tool wrapper over InMemoryTransport with a loopback fake facilitator: the order
 * verify → check → settle, and the failure arms the real chain cannot easily produce (settle
 * resolving success:false or throwing, verify throwing, facilitator down, unsupported_tld).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckRunners } from '../../../src/catalog.ts';
import { type Config, loadConfig } from '../../../src/config.ts';
import { createPaidToolCall } from '../../../src/mcp/paid-tool.ts';
import { buildMcpServer } from '../../../src/mcp/server.ts';
import { createPayments } from '../../../src/payments/payments.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from '../../world/check-upstream.ts';
import { type FakeFacilitator, startFakeFacilitator } from '../../world/facilitator.ts';

const NETWORK = 'eip155:8453';
const loaded = loadConfig({ LOG_LEVEL: 'silent' });
const config: Config = {
  ...loaded,
  publicBaseUrl: 'https://checks.example.com',
  x402: { ...loaded.x402, payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
};
const payer = x402Client.fromConfig({
  schemes: [{ network: NETWORK, client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
});

let events: string[];
let facilitator: FakeFacilitator;
let upstream: CheckUpstream;
let client: Client;
let refuseTld: boolean;

// Fresh fakes per test: no scripted answer or failure carries over.
beforeEach(async () => {
  events = [];
  facilitator = await startFakeFacilitator(NETWORK, events);
  upstream = await startCheckUpstream(events);
  refuseTld = false;
  const logger = pino({ level: 'silent' });
  // Fresh payments per test, so a facilitator made unavailable is not remembered.
  const payments = createPayments({
    config,
    logger,
    facilitator: { client: new HTTPFacilitatorClient({ url: facilitator.url.origin }) },
  });
  const runners: CheckRunners = {
    ...upstreamRunners(upstream),
    admit: async () =>
      refuseTld
        ? { type: 'invalid_input', reason: { code: 'unsupported_tld', message: 'No RDAP service for .es.' } }
        : null,
  };
  const callPaidTool = createPaidToolCall({ runners, payments });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer({ config, callPaidTool, signal: new AbortController().signal }).connect(serverSide);
  client = new Client({ name: 'paid-tool-test', version: '1.0.0' });
  await client.connect(clientSide);
});
afterEach(async () => {
  await client.close();
  await upstream.close();
  await facilitator.close();
});

async function call(meta?: Record<string, unknown>, domain = 'example.com'): Promise<CallToolResult> {
  return (await client.callTool({
    name: 'check_domain_expiry',
    arguments: { domain },
    ...(meta ? { _meta: meta } : {}),
  })) as CallToolResult;
}

async function signedPayment(): Promise<PaymentPayload> {
  const challenge = (await call()).structuredContent as unknown as PaymentRequired;
  events.length = 0;
  return payer.createPaymentPayload(challenge);
}

describe('paid tool over x402', () => {
  it('verifies, runs the check, then settles, and returns the receipt', async () => {
    const result = await call({ 'x402/payment': await signedPayment() });
    expect(result.isError).toBeFalsy();
    expect(events).toEqual(['facilitator:/verify', 'upstream:v1_expiry', 'facilitator:/settle']);
    expect(result._meta?.['x402/payment-response']).toMatchObject({ success: true, network: NETWORK });
  });

  it('withholds the result when settle resolves success:false, answering the challenge with the reason', async () => {
    facilitator.settleAnswer = () => ({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
      network: NETWORK,
    });
    const result = await call({ 'x402/payment': await signedPayment() });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      x402Version: 2,
      error: 'invalid_exact_evm_nonce_already_used',
      accepts: [expect.objectContaining({ amount: '10000' })],
    });
    expect(result.structuredContent).not.toHaveProperty('domain');
    // The only content is the challenge itself (the bazaar example aside, no result fields).
    expect(result.content).toHaveLength(1);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(result._meta?.['x402/payment-response']).toBeUndefined();
  });

  it('withholds the result when settle fails at the HTTP level: payments unavailable, not a payment error', async () => {
    const payment = await signedPayment();
    facilitator.settleAnswer = () => {
      throw new Error('facilitator crashed');
    };
    const result = await call({ 'x402/payment': payment });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'payment_unavailable' });
    expect(result.structuredContent).not.toHaveProperty('domain');
    expect(JSON.stringify(result)).not.toMatch(/crashed/);
  });

  it('withholds the result and names the reason when the facilitator refuses the settlement', async () => {
    const payment = await signedPayment();
    facilitator.settleAnswer = () => ({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
      transaction: '',
      network: NETWORK,
    });
    const result = await call({ 'x402/payment': payment });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      x402Version: 2,
      error: 'invalid_exact_evm_insufficient_balance',
    });
    expect(result.structuredContent).not.toHaveProperty('domain');
  });

  it('refuses before running when verify says invalid, and names the facilitator when verify fails', async () => {
    facilitator.verifyAnswer = () => ({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
    const invalid = await call({ 'x402/payment': await signedPayment() });
    expect(invalid.structuredContent).toMatchObject({ x402Version: 2, error: 'invalid_exact_evm_signature' });

    facilitator.verifyAnswer = () => {
      throw new Error('facilitator crashed');
    };
    const failed = await call({ 'x402/payment': await signedPayment() });
    expect(failed.structuredContent).toMatchObject({ code: 'payment_unavailable' });
    expect(events.filter((event) => event.startsWith('upstream:'))).toEqual([]);
  });

  it('answers payment_unavailable when the facilitator supported kinds cannot be loaded, with no challenge', async () => {
    facilitator.supportedFailStatus = 503;
    const result = await call();
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'payment_unavailable' });
    expect(result.structuredContent).not.toHaveProperty('accepts');
  });

  it('applies the runners admission before payment: unsupported_tld, no challenge, no facilitator call', async () => {
    refuseTld = true;
    const result = await call(undefined, 'example.es');
    expect(result.structuredContent).toEqual({
      code: 'unsupported_tld',
      message: 'No RDAP service for .es.',
    });
    expect(facilitator.calls.filter((c) => c.path !== '/supported')).toEqual([]);
    expect(events.filter((event) => event.startsWith('upstream:'))).toEqual([]);
  });
});
