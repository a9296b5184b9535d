/**
 * Hostile input at `/mcp`: broken JSON-RPC, batches, unknown methods and tools, oversized bodies,
 * wrong headers, foreign hosts and origins, and malformed or misdirected `_meta["x402/payment"]`.
 * Each gets a sensible answer and none is charged (balances read from the local chain).
 */
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
  service.upstream.delayMs = 0;
});

const JSON_RPC_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

function post(
  body: RequestInit['body'],
  headers: Record<string, string> = JSON_RPC_HEADERS,
): Promise<Response> {
  return fetch(service.mcpUrl, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
}

/** A raw POST with a chosen `Host` header (fetch does not let callers set it). */
function postWithHost(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { ...JSON_RPC_HEADERS, host };
    const req = request(
      { host: '127.0.0.1', port: service.mcpUrl.port, path: '/mcp', method: 'POST', headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(PING);
  });
}

const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  callTool(client, name, args, meta);

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

const balances = (payer: PrivateKeyAccount) => service.balances(payer);

async function challengeOf(tool: string): Promise<PaymentRequired> {
  return (await call(tool, { domain: 'example.com' })).structuredContent as unknown as PaymentRequired;
}

describe('JSON-RPC framing', () => {
  it('answers malformed JSON with 400 / -32700 and JSON that is no JSON-RPC message with 400 / -32600', async () => {
    // JSON-RPC 2.0 §5.1: -32700 when the text does not parse, -32600 when it is not a Request object.
    const expected: [string, number][] = [
      ['{"jsonrpc":', -32700],
      ['{"hello":1}', -32600],
      ['null', -32600],
    ];
    for (const [body, code] of expected) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code, body).toBe(code);
    }
  });

  it('answers an unknown method -32601, an unknown tool or malformed params -32602 in one line, bad arguments isError', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'nope/unknown' }));
    expect(await res.json()).toMatchObject({ id: 7, error: { code: -32601 } });
    const rpc = async (params: unknown) => {
      const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params }));
      return (await answer.json()) as { id: number; error?: { code: number; message: string } };
    };
    const unknownTool = await rpc({ name: 'drop_database', arguments: {} });
    expect(unknownTool).toMatchObject({ id: 8, error: { code: -32602 } });
    expect(unknownTool.error?.message).toMatch(/Unknown tool: drop_database/);
    for (const params of [
      { name: 'check_cert', arguments: 'example.com' },
      { name: 'check_cert', arguments: [1] },
      { name: 'check_cert', arguments: null },
      { arguments: { domain: 'example.com' } },
    ]) {
      const malformed = await rpc(params);
      expect(malformed).toMatchObject({ id: 8, error: { code: -32602 } });
      expect(malformed.error?.message).toMatch(/^Invalid params: /);
      expect(malformed.error?.message).not.toContain('\n');
    }
    const wrongType = await call('check_cert', { domain: 42 });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/Input validation error/);
    expect(service.runs()).toBe(0);
  });

  it('answers a batch array message by message, and refuses a batch over the SDK limit', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'nope/unknown' },
    ];
    const res = await post(JSON.stringify(batch));
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(answers.find((answer) => answer.id === 1)?.result).toEqual({});
    expect(answers.find((answer) => answer.id === 2)?.error?.code).toBe(-32601);

    const huge = Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }));
    expect((await post(JSON.stringify(huge))).status).toBe(400);
  });

  it('refuses a body over 64 KiB with 413, whether sized or streamed', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(70_000) },
    });
    const sized = await post(big);
    expect(sized.status).toBe(413);
    expect(await sized.json()).toMatchObject({ code: 'payload_too_large' });
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 8192)
          controller.enqueue(bytes.slice(offset, offset + 8192));
        controller.close();
      },
    });
    expect((await post(stream)).status).toBe(413);
  });

  it('answers a wrong content type 415, a missing Accept 406 and an unknown protocol version 400', async () => {
    expect((await post(PING, { ...JSON_RPC_HEADERS, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(PING, { 'content-type': 'application/json' })).status).toBe(406);
    expect((await post(PING, { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '1999-01-01' })).status).toBe(
      400,
    );
  });

  it('answers GET, DELETE and PUT with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const res = await fetch(service.mcpUrl, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      await res.arrayBuffer();
    }
  });
});

describe('Host and Origin allow-list', () => {
  it('refuses a foreign Host or Origin with 403 and admits loopback and the public host', async () => {
    expect(await postWithHost('evil.example.com')).toBe(403);
    expect(await postWithHost(`evil.example.com:${service.mcpUrl.port}`)).toBe(403);
    expect(await postWithHost(`localhost:${service.mcpUrl.port}`)).toBe(200);
    expect(await postWithHost(`[::1]:${service.mcpUrl.port}`)).toBe(200);
    expect(await postWithHost(new URL(service.config.publicBaseUrl).host)).toBe(200);

    const forbidden = await post(PING, { ...JSON_RPC_HEADERS, origin: 'http://evil.example.com' });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect((await post(PING, { ...JSON_RPC_HEADERS, origin: 'null' })).status).toBe(403);
    expect((await post(PING, { ...JSON_RPC_HEADERS, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post(PING)).status).toBe(200);
  });
});

describe('hostile _meta["x402/payment"]', () => {
  it('refuses a string, an array, a number or a v1-shaped object with the challenge; nothing runs or is charged', async () => {
    const { payer, payment: signed } = await service.signedPayment(client, 'check_cert');
    const start = await balances(payer);
    const runsBefore = service.runs();
    const hostile: unknown[] = [JSON.stringify(signed), [signed], 10_000, { ...signed, x402Version: 1 }, {}];
    for (const payment of hostile) {
      const result = await call('check_cert', { domain: 'example.com' }, { 'x402/payment': payment });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        x402Version: 2,
        error: expect.stringMatching(/^Invalid payment/),
        accepts: [expect.objectContaining({ amount: '10000' })],
      });
    }
    expect(service.runs()).toBe(runsBefore);
    expect(await balances(payer)).toEqual(start);
  });

  it('a v1 payment is told, in the result, that the service speaks x402 v2 and how to pay', async () => {
    const { payer, payment: signed } = await service.signedPayment(client, 'check_cert');
    const start = await balances(payer);
    // An x402 v1 PaymentPayload: x402Version 1, scheme and network at the top, no `accepted`.
    const { accepted, resource: _resource, extensions: _extensions, ...rest } = signed;
    const v1 = { ...rest, x402Version: 1, scheme: accepted.scheme, network: 'base' };
    const result = await call('check_cert', { domain: 'example.com' }, { 'x402/payment': v1 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      x402Version: 2,
      error: expect.stringMatching(
        /x402 v1 payment.*speaks x402 v2 only.*`accepts`.*_meta\["x402\/payment"\]/,
      ),
      accepts: [expect.objectContaining({ amount: '10000' })],
    });
    expect(await balances(payer)).toEqual(start);
  });

  it('refuses a payment signed for another tool, or with a tampered amount or signature', async () => {
    const payer = await service.newPayer(1_000_000n);
    const forCert = await service.sign(payer, await challengeOf('check_cert'));
    const forSiteHealth = await service.sign(payer, await challengeOf('site_health'));
    const start = await balances(payer);
    const runsBefore = service.runs();

    const otherTool = await call('check_dns', { domain: 'example.com' }, { 'x402/payment': forCert });
    expect(otherTool.structuredContent).toMatchObject({
      error: expect.stringMatching(/mcp:\/\/tool\/check_cert/),
    });
    // A site_health authorization with its resource removed still echoes site_health's discovery
    // extension; with that removed too, its price (0.03 USD) matches no check_cert requirement.
    const { resource: _resource, ...unnamed } = forSiteHealth;
    const otherEcho = await call('check_cert', { domain: 'example.com' }, { 'x402/payment': unnamed });
    expect(otherEcho.structuredContent).toMatchObject({
      error: 'extension_echo_mismatch: extensions.bazaar',
    });
    const { extensions: _extensions, ...bare } = unnamed;
    const wrongPrice = await call('check_cert', { domain: 'example.com' }, { 'x402/payment': bare });
    expect(wrongPrice.structuredContent).toMatchObject({ error: 'No matching payment requirements' });

    const authorization = (forCert.payload as { authorization: Record<string, string> }).authorization;
    const tampered: PaymentPayload = {
      ...forCert,
      payload: { ...forCert.payload, authorization: { ...authorization, to: payer.address } },
    };
    const badSignature = await call('check_cert', { domain: 'example.com' }, { 'x402/payment': tampered });
    expect(badSignature.isError).toBe(true);
    expect(badSignature.structuredContent).toMatchObject({
      x402Version: 2,
      error: expect.stringMatching(/invalid|recipient|signature/i),
    });

    expect(service.runs()).toBe(runsBefore);
    expect(await balances(payer)).toEqual(start);
  });

  it('runs one signature once: a concurrent copy is refused as in flight, and the payer is charged once', async () => {
    const { payer, payment } = await service.signedPayment(client, 'check_cert');
    const start = await balances(payer);
    const runsBefore = service.runs();
    service.upstream.delayMs = 300;

    const results = await Promise.all(
      [0, 1].map(() => call('check_cert', { domain: 'example.com' }, { 'x402/payment': payment })),
    );
    const paid = results.filter((result) => !result.isError);
    const refused = results.filter((result) => result.isError);
    expect(paid).toHaveLength(1);
    expect(refused[0]?.structuredContent).toMatchObject({ code: 'payment_in_flight' });
    expect(service.runs()).toBe(runsBefore + 1);
    expect(await balances(payer)).toEqual({ payer: start.payer - 10_000n, payTo: start.payTo + 10_000n });
  });
});
