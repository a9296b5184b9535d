/**
 * The MCP endpoint end to end with the official SDK client over loopback HTTP: the six catalog tools
 * and their schemas, the free tools, and paid tools paid with the official x402 client on the local
 * chain (balances read from the chain), never charged for invalid input or failed upstreams.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freeOperations, paidOperations, usdToAtomic } from '../../src/catalog.ts';
import { certResultSchema } from '../../src/checks/cert/result.ts';
import { buildServerCard } from '../../src/http/discovery/server-card.ts';
import { callTool, type PaidMcpService, startPaidMcpService } from '../world/mcp-service.ts';

let service: PaidMcpService;
let client: Client;

beforeAll(async () => {
  service = await startPaidMcpService();
  client = await service.connect();
});
afterAll(async () => {
  await service?.close();
});
beforeEach(() => {
  service.upstream.failing = false;
});

const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  callTool(client, name, args, meta);

/** structuredContent, after checking that content[0].text carries the same JSON. */
function structured(result: CallToolResult): Record<string, unknown> {
  const [first] = result.content;
  expect(first?.type).toBe('text');
  expect(JSON.parse(first?.type === 'text' ? first.text : 'null')).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
}

const balances = (payer: PrivateKeyAccount) => service.balances(payer);

describe('tools/list and initialize', () => {
  it('lists the six catalog tools with descriptions, described input, output schema and annotations', async () => {
    const { tools } = await client.listTools();
    const catalog = [...freeOperations, ...paidOperations];
    expect(tools.map((tool) => tool.name).sort()).toEqual(catalog.map((operation) => operation.tool).sort());
    for (const operation of catalog) {
      const tool = tools.find((candidate) => candidate.name === operation.tool);
      expect(tool?.description).toBe(operation.description);
      expect(tool?.title).toBe(operation.title);
      expect(tool?.annotations).toEqual({
        title: operation.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      });
      expect(tool?.outputSchema?.type).toBe('object');
      if (operation.id === 'pricing') {
        expect(tool?.inputSchema.properties ?? {}).toEqual({});
        continue;
      }
      const domain = tool?.inputSchema.properties?.domain as { type: string; description: string };
      expect(domain.type).toBe('string');
      expect(domain.description).toMatch(/example\.com/);
      expect(tool?.inputSchema.required).toEqual(['domain']);
    }
    for (const operation of paidOperations) {
      const properties = tools.find((tool) => tool.name === operation.tool)?.outputSchema?.properties ?? {};
      // Widened: the result's own fields and the PaymentRequired fields are both declared.
      expect(Object.keys(properties)).toEqual(
        expect.arrayContaining(['domain', 'x402Version', 'accepts', 'code']),
      );
    }
  });

  it('reports the server card identity and a protocol version the card lists', async () => {
    const card = buildServerCard(service.config.publicBaseUrl);
    expect(client.getServerVersion()).toMatchObject({
      name: card.name,
      version: card.version,
      title: card.title,
    });
    const negotiated = (client.transport as { protocolVersion?: string } | undefined)?.protocolVersion;
    expect(card.remotes[0]?.supportedProtocolVersions).toContain(negotiated);
    expect(client.getInstructions()).toMatch(/x402\/payment/);
  });
});

describe('free tools', () => {
  it('validate_target normalizes a URL and explains a refusal, without touching an upstream', async () => {
    const before = service.runs();
    const valid = structured(await call('validate_target', { domain: 'https://WWW.Bücher.de/x' }));
    expect(valid).toMatchObject({
      valid: true,
      domain: 'www.xn--bcher-kva.de',
      registrable_domain: 'xn--bcher-kva.de',
    });
    const invalid = await call('validate_target', { domain: '192.168.0.1' });
    expect(invalid.isError).toBeFalsy();
    expect(structured(invalid)).toMatchObject({
      valid: false,
      domain: null,
      reason: { code: expect.any(String) },
    });
    expect(service.runs()).toBe(before);
  });

  it('pricing lists every paid tool with its price and the payment terms', async () => {
    const pricing = structured(await call('pricing', {})) as {
      paid: { tool: string; price_usd: string; amount_atomic: string; pay_to: string; network: string }[];
      lifetime_note: { default_64_day_from: string };
    };
    expect(pricing.paid.map(({ tool, price_usd }) => [tool, price_usd])).toEqual([
      ['check_cert', '0.01'],
      ['check_dns', '0.01'],
      ['check_domain_expiry', '0.01'],
      ['site_health', '0.03'],
    ]);
    expect(pricing.paid[3]).toMatchObject({
      amount_atomic: '30000',
      pay_to: service.chain.payTo,
      network: 'eip155:8453',
    });
    expect(pricing.lifetime_note.default_64_day_from).toBe('2027-02-10');
  });
});

describe('paid tools over x402', () => {
  it('check_cert: challenge first, then paid with the official client: result, receipt, charged exactly once', async () => {
    const payer = await service.newPayer(1_000_000n);
    const start = await balances(payer);
    const runsBefore = service.runs();

    const unpaid = await call('check_cert', { domain: 'Example.COM' });
    expect(unpaid.isError).toBe(true);
    const challenge = structured(unpaid) as unknown as PaymentRequired;
    expect(challenge).toMatchObject({
      x402Version: 2,
      error: 'Payment required',
      resource: { url: 'mcp://tool/check_cert' },
      accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', payTo: service.chain.payTo }],
    });
    const bazaar = challenge.extensions?.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
    expect(validateDiscoveryExtension(bazaar)).toMatchObject({ valid: true });
    expect(bazaar.info.input).toMatchObject({ type: 'mcp', toolName: 'check_cert' });
    expect(service.runs()).toBe(runsBefore);
    expect(await balances(payer)).toEqual(start);

    const payment = await service.sign(payer, challenge);
    const paid = await call('check_cert', { domain: 'Example.COM' }, { 'x402/payment': payment });
    expect(paid.isError).toBeFalsy();
    expect(certResultSchema.parse(structured(paid)).domain).toBe('example.com');
    const receipt = paid._meta?.['x402/payment-response'] as SettleResponse;
    expect(receipt).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(receipt.payer?.toLowerCase()).toBe(payer.address.toLowerCase());
    expect(service.runs()).toBe(runsBefore + 1);
    const price = BigInt(usdToAtomic('0.01'));
    expect(await balances(payer)).toEqual({ payer: start.payer - price, payTo: start.payTo + price });

    // Replaying the settled authorization is refused before the check runs, naming the transaction
    // that settled it (a check's result is not kept); nothing more is charged.
    const replay = await call('check_cert', { domain: 'example.com' }, { 'x402/payment': payment });
    expect(replay.isError).toBe(true);
    expect(structured(replay)).toMatchObject({
      x402Version: 2,
      error: `already_settled: transaction ${receipt.transaction}`,
    });
    expect(service.runs()).toBe(runsBefore + 1);
    expect(await balances(payer)).toEqual({ payer: start.payer - price, payTo: start.payTo + price });
  });

  it('site_health costs 0.03 USD on chain', async () => {
    const { payer, challenge, payment } = await service.signedPayment(client, 'site_health');
    const start = await balances(payer);
    expect(challenge.accepts[0]?.amount).toBe('30000');
    const paid = await call('site_health', { domain: 'example.com' }, { 'x402/payment': payment });
    expect(paid.isError).toBeFalsy();
    expect(structured(paid)).toMatchObject({ domain: 'example.com', partial: false });
    expect(await balances(payer)).toEqual({ payer: start.payer - 30_000n, payTo: start.payTo + 30_000n });
  });

  it('invalid input is refused with its reason and no payment requirement, even with a valid payment attached', async () => {
    const { payer, payment } = await service.signedPayment(client, 'check_dns');
    const start = await balances(payer);
    const runsBefore = service.runs();

    const refused = await call('check_dns', { domain: 'http://10.0.0.1/' }, { 'x402/payment': payment });
    expect(refused.isError).toBe(true);
    const body = structured(refused);
    expect(body).toMatchObject({
      code: 'invalid_domain',
      reason: { code: expect.any(String), message: expect.any(String) },
    });
    expect(body).not.toHaveProperty('accepts');
    const blank = structured(await call('check_domain_expiry', { domain: '   ' }));
    expect(blank).toMatchObject({ code: 'missing_domain' });

    expect(service.runs()).toBe(runsBefore);
    expect(await balances(payer)).toEqual(start);
  });

  it('an upstream failure names the upstream and is not settled; the same authorization still pays later', async () => {
    const { payer, payment } = await service.signedPayment(client, 'check_dns');
    const start = await balances(payer);
    const runsBefore = service.runs();

    service.upstream.failing = true;
    const failed = await call('check_dns', { domain: 'example.com' }, { 'x402/payment': payment });
    expect(failed.isError).toBe(true);
    expect(structured(failed)).toMatchObject({
      code: 'upstream_failed',
      upstreams: [{ name: 'check-upstream', error: 'http_status' }],
    });
    expect(failed._meta?.['x402/payment-response']).toBeUndefined();
    expect(service.runs()).toBe(runsBefore + 1);
    expect(await balances(payer)).toEqual(start);

    service.upstream.failing = false;
    const paid = await call('check_dns', { domain: 'example.com' }, { 'x402/payment': payment });
    expect(paid.isError).toBeFalsy();
    expect(await balances(payer)).toEqual({ payer: start.payer - 10_000n, payTo: start.payTo + 10_000n });
  });
});
