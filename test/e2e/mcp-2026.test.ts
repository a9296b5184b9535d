/**
 * MCP 2026-07-28 beside 2025-11-25 on one `/mcp`: the stateless revision on the wire (server/discover,
 * the per-request `_meta` envelope, `Mcp-Method`/`Mcp-Name`, `resultType`, cache hints, the spec's
 * error codes), and the official 2.x client in its three negotiation modes next to the 1.x client,
 * free and paid (x402 in `_meta`, balances read from the local chain).
 */
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SettleResponse } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeOperations, paidOperations } from '../../src/catalog.ts';
import { buildServerCard } from '../../src/http/discovery/server-card.ts';
import {
  callTool,
  type NegotiationMode,
  type PaidMcpService,
  startPaidMcpService,
} from '../world/mcp-service.ts';

let service: PaidMcpService;

beforeAll(async () => {
  service = await startPaidMcpService();
});
afterAll(async () => {
  await service?.close();
});

const MODERN = '2026-07-28';
const CATALOG_TOOLS = [...freeOperations, ...paidOperations].map((operation) => operation.tool);

interface RpcAnswer {
  status: number;
  body: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

/** The envelope a 2026-07-28 client puts in every request's `_meta`. */
function envelope(version = MODERN): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
  };
}

/**
 * One 2026-07-28 request as raw HTTP: the standard headers derived from the body unless `headers`
 * overrides them (a `null` value leaves that header out).
 */
async function rpc2026(
  method: string,
  params: Record<string, unknown> = {},
  options: { version?: string; headers?: Record<string, string | null> } = {},
): Promise<RpcAnswer> {
  const version = options.version ?? MODERN;
  const meta = { ...envelope(version), ...((params._meta as object | undefined) ?? {}) };
  const body = { jsonrpc: '2.0', id: 41, method, params: { ...params, _meta: meta } };
  const derived: Record<string, string | null> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    'mcp-method': method,
    'mcp-name': typeof params.name === 'string' ? params.name : null,
    ...options.headers,
  };
  const headers = Object.fromEntries(
    Object.entries(derived).filter((entry): entry is [string, string] => entry[1] !== null),
  );
  const res = await fetch(service.mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as RpcAnswer['body'] };
}

describe('MCP 2026-07-28 on the wire', () => {
  it('answers server/discover with both eras, the tools capability, serverInfo, instructions and cache fields', async () => {
    const { status, body } = await rpc2026('server/discover');
    expect(status).toBe(200);
    const card = buildServerCard(service.config.publicBaseUrl);
    expect(body.result).toMatchObject({
      resultType: 'complete',
      capabilities: { tools: {} },
      instructions: expect.stringMatching(/x402\/payment/),
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: card.name, version: card.version } },
    });
    const supported = body.result?.supportedVersions as string[];
    expect(supported).toContain(MODERN);
    // The card must not contradict the endpoint: every version discover offers is on the card.
    expect(card.remotes[0]?.supportedProtocolVersions).toEqual(expect.arrayContaining(supported));
  });

  it('lists the catalog tools in catalog order, the same on every call, with resultType, ttlMs and cacheScope', async () => {
    const first = await rpc2026('tools/list');
    const second = await rpc2026('tools/list');
    expect(first.body.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
    });
    const names = (first.body.result?.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual(CATALOG_TOOLS);
    expect(second.body.result?.tools).toEqual(first.body.result?.tools);
  });

  it('carries resultType on a tool result, and the free tool answers as over 2025-11-25', async () => {
    const { status, body } = await rpc2026('tools/call', {
      name: 'validate_target',
      arguments: { domain: 'https://WWW.Bücher.de/x' },
    });
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { valid: true, domain: 'www.xn--bcher-kva.de' },
    });
    const legacy = await callTool(await service.connect(), 'validate_target', {
      domain: 'https://WWW.Bücher.de/x',
    });
    expect(body.result?.structuredContent).toEqual(legacy.structuredContent);
    expect(body.result?.content).toEqual(legacy.content);
  });

  it('answers an unsupported version -32022 naming the supported ones, and nothing runs', async () => {
    const before = service.runs();
    const { status, body } = await rpc2026(
      'tools/call',
      { name: 'check_cert', arguments: { domain: 'example.com' } },
      { version: '2099-01-01' },
    );
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32022);
    expect(body.error?.data).toMatchObject({ requested: '2099-01-01' });
    expect(body.error?.data?.supported).toContain(MODERN);
    expect(service.runs()).toBe(before);
  });

  it('requires Mcp-Method and Mcp-Name and refuses a mismatch with -32020; nothing runs or is charged', async () => {
    const payer = await service.newPayer(1_000_000n);
    const challenge = (
      await rpc2026('tools/call', { name: 'check_cert', arguments: { domain: 'example.com' } })
    ).body.result?.structuredContent;
    const payment = await service.sign(payer, challenge as never);
    const start = await service.balances(payer);
    const before = service.runs();
    const paidCall = {
      name: 'check_cert',
      arguments: { domain: 'example.com' },
      _meta: { 'x402/payment': payment },
    };
    const refused: Record<string, string | null>[] = [
      { 'mcp-method': null },
      { 'mcp-name': null },
      { 'mcp-protocol-version': null },
      { 'mcp-method': 'tools/list' },
      { 'mcp-name': 'validate_target' },
      // The spec's Base64 sentinel form, decoded before comparing: another tool, then garbage.
      { 'mcp-name': `=?base64?${Buffer.from('validate_target').toString('base64')}?=` },
      { 'mcp-name': '=?base64?!!not-base64!!?=' },
    ];
    for (const headers of refused) {
      const { status, body } = await rpc2026('tools/call', paidCall, { headers });
      expect(status, JSON.stringify(headers)).toBe(400);
      expect(body.error?.code, JSON.stringify(headers)).toBe(-32020);
    }
    expect(service.runs()).toBe(before);
    expect(await service.balances(payer)).toEqual(start);
  });

  it('pays a tool through _meta["x402/payment"] and returns the receipt in _meta["x402/payment-response"]', async () => {
    const payer = await service.newPayer(1_000_000n);
    const unpaid = await rpc2026('tools/call', { name: 'check_cert', arguments: { domain: 'example.com' } });
    expect(unpaid.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      structuredContent: { x402Version: 2, accepts: [expect.objectContaining({ amount: '10000' })] },
    });
    const payment = await service.sign(payer, unpaid.body.result?.structuredContent as never);
    const start = await service.balances(payer);
    const paid = await rpc2026('tools/call', {
      name: 'check_cert',
      arguments: { domain: 'example.com' },
      _meta: { 'x402/payment': payment },
    });
    expect(paid.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { domain: 'example.com' },
    });
    expect(paid.body.result?.isError).toBeUndefined();
    const receipt = (paid.body.result?._meta as Record<string, SettleResponse>)['x402/payment-response'];
    expect(receipt).toMatchObject({ success: true, payer: payer.address, transaction: expect.any(String) });
    expect(await service.balances(payer)).toEqual({
      payer: start.payer - 10_000n,
      payTo: start.payTo + 10_000n,
    });
  });
});

describe('official clients: 2.x in each negotiation mode beside 1.x', () => {
  const expectedEra: Record<NegotiationMode, 'legacy' | 'modern'> = {
    legacy: 'legacy',
    auto: 'modern',
    'pin-2026': 'modern',
  };

  it.each(Object.keys(expectedEra) as NegotiationMode[])(
    '%s: negotiates its era, lists the same tools as the 1.x client, and pays a check once',
    async (mode) => {
      const client: ClientV2 = await service.connectV2(mode);
      expect(client.getProtocolEra()).toBe(expectedEra[mode]);

      const v1Tools = (await (await service.connect()).listTools()).tools;
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(CATALOG_TOOLS);
      for (const tool of tools) {
        const twin = v1Tools.find((candidate) => candidate.name === tool.name);
        expect(tool.inputSchema, tool.name).toEqual(twin?.inputSchema);
        expect(tool.outputSchema, tool.name).toEqual(twin?.outputSchema);
        expect(tool.description).toBe(twin?.description);
      }

      const before = service.runs();
      const free = (await callTool(client, 'validate_target', { domain: 'example.com' })) as CallToolResult;
      expect(free.structuredContent).toMatchObject({ valid: true, domain: 'example.com' });

      const { payer, payment } = await service.signedPayment(client, 'check_dns');
      const start = await service.balances(payer);
      const paid = (await callTool(
        client,
        'check_dns',
        { domain: 'example.com' },
        { 'x402/payment': payment },
      )) as CallToolResult;
      expect(paid.isError).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({ domain: 'example.com' });
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, payer: payer.address });
      expect(await service.balances(payer)).toEqual({
        payer: start.payer - 10_000n,
        payTo: start.payTo + 10_000n,
      });
      expect(service.runs()).toBe(before + 1);

      // The same signature again: the same answer rules as over 2025-11-25 (never a second charge).
      const again = (await callTool(
        client,
        'check_dns',
        { domain: 'example.com' },
        { 'x402/payment': payment },
      )) as CallToolResult;
      expect(await service.balances(payer)).toEqual({
        payer: start.payer - 10_000n,
        payTo: start.payTo + 10_000n,
      });
      expect(again.structuredContent).toBeDefined();
    },
    60_000,
  );

  it('refuses an invalid domain before payment in the 2026 era, as in 2025: missing_domain and invalid_domain', async () => {
    const client = await service.connectV2('pin-2026');
    const before = service.runs();
    const missing = (await callTool(client, 'check_cert', { domain: '  ' })) as CallToolResult;
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'missing_domain' } });
    const invalid = (await callTool(client, 'check_cert', { domain: '10.0.0.1' })) as CallToolResult;
    expect(invalid).toMatchObject({ isError: true, structuredContent: { code: 'invalid_domain' } });
    expect(service.runs()).toBe(before);
  });
});
