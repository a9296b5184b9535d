/**
 * What a payment may buy and how a bad one is answered, on Node and on the Worker in local workerd,
 * over HTTP and MCP, with the official x402 client signing on a local anvil chain:
 * - a signature buys only the resource it was signed for (route or tool; the domain is the payer's
 *   choice): each pair of transports refuses a payload signed for another resource with 402 and a
 *   reason, runs nothing and charges nothing, and the same payload then buys what it was signed for;
 * - a payload that is decodable but not a valid exact EIP-3009 payment is a 402 whose reason names
 *   the field, never a 503 `payment_unavailable`, and no "unavailable" line reaches the log.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker } from '../../scripts/local-edge.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { type EdgeService, startEdgeService } from '../world/edge-service.ts';
import { startWorld, type World } from '../world/index.ts';
import { callTool, type PaidMcpService, startPaidMcpService } from '../world/mcp-service.ts';
import { clientFor } from '../world/payer-client.ts';

const FUNDS = 1_000_000n;

/** One running service, whichever runtime, as these tests use it. */
interface Target {
  chain: LocalChain;
  /** Base URL of the HTTP routes. */
  base: URL;
  /** A domain whose checks succeed there; `otherDomain` too. */
  domain: string;
  otherDomain: string;
  mcp: Client;
  /** Everything logged so far. */
  logs(): string;
}

type Transport = 'http' | 'mcp';
/** Where a payment is presented: a route over HTTP or a tool over MCP. */
interface Place {
  transport: Transport;
  /** The route (HTTP) or tool (MCP). */
  name: string;
}

const CERT_HTTP: Place = { transport: 'http', name: '/v1/cert' };
const CERT_MCP: Place = { transport: 'mcp', name: 'check_cert' };
const DNS_HTTP: Place = { transport: 'http', name: '/v1/dns' };
const DNS_MCP: Place = { transport: 'mcp', name: 'check_dns' };

/** What the client got: delivered, or refused with `status` (null over MCP) and `reason`. */
interface Answer {
  delivered: boolean;
  status: number | null;
  code: string | null;
  /** The problem's `reason` (HTTP) or the challenge's `error` (MCP). */
  reason: string | null;
  /** The `error` of the `PAYMENT-REQUIRED` challenge (HTTP) or of the MCP challenge. */
  x402Error: string | null;
  retryAfter: string | null;
}

async function challengeAt(target: Target, place: Place): Promise<PaymentRequired> {
  if (place.transport === 'http') {
    const res = await fetch(new URL(`${place.name}?domain=${target.domain}`, target.base));
    await res.arrayBuffer();
    return decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
  }
  const unpaid = await callTool(target.mcp, place.name, { domain: target.domain });
  return unpaid.structuredContent as unknown as PaymentRequired;
}

async function present(target: Target, place: Place, payment: unknown, domain: string): Promise<Answer> {
  if (place.transport === 'http') {
    const header =
      typeof payment === 'string' ? payment : encodePaymentSignatureHeader(payment as PaymentPayload);
    const res = await fetch(new URL(`${place.name}?domain=${domain}`, target.base), {
      headers: { 'payment-signature': header },
    });
    const body = (await res.json()) as Record<string, unknown>;
    const required = res.headers.get('payment-required');
    return {
      delivered: res.status === 200 && body.domain === domain,
      status: res.status,
      code: typeof body.code === 'string' ? body.code : null,
      reason: typeof body.reason === 'string' ? body.reason : null,
      x402Error: required ? (decodePaymentRequiredHeader(required).error ?? null) : null,
      retryAfter: res.headers.get('retry-after'),
    };
  }
  const result: CallToolResult = await callTool(
    target.mcp,
    place.name,
    { domain },
    { 'x402/payment': payment },
  );
  const body = (result.structuredContent ?? {}) as Record<string, unknown>;
  const error = typeof body.error === 'string' ? body.error : null;
  return {
    delivered: result.isError !== true && body.domain === domain,
    status: null,
    code: typeof body.code === 'string' ? body.code : body.x402Version === 2 ? 'payment_required' : null,
    reason: error,
    x402Error: error,
    retryAfter: null,
  };
}

async function newPayer(chain: LocalChain): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.fund(account.address, FUNDS);
  return account;
}

const PAIRS: [string, Place, Place][] = [
  ['HTTP /v1/cert → HTTP /v1/dns', CERT_HTTP, DNS_HTTP],
  ['MCP check_cert → HTTP /v1/dns', CERT_MCP, DNS_HTTP],
  ['HTTP /v1/cert → MCP check_dns', CERT_HTTP, DNS_MCP],
  ['MCP check_cert → MCP check_dns', CERT_MCP, DNS_MCP],
];

type Authorization = Record<string, string>;

/** `address` with the case of its first letter flipped: still 20 bytes of hex, its checksum broken. */
function brokenChecksum(address: string): string {
  const index = [...address].findIndex((char, at) => at > 1 && /[a-fA-F]/.test(char));
  const char = address[index] ?? '';
  const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
  return `${address.slice(0, index)}${flipped}${address.slice(index + 1)}`;
}
/** A payload made hostile from a good one signed for the place it is presented to. */
type Mangle = (good: PaymentPayload, authorization: Authorization, signature: string) => unknown;

/** A good payload with fields of its authorization changed by `change`. */
function changedAuthorization(change: (authorization: Authorization) => Record<string, unknown>): Mangle {
  return (good, authorization, signature) => ({
    ...good,
    payload: { signature, authorization: { ...authorization, ...change(authorization) } },
  });
}

/** Decodable payloads that are not valid exact EIP-3009 payments, and the field the reason must name. */
const MALFORMED: [string, Mangle, RegExp][] = [
  [
    'payload.authorization missing',
    (good, _a, signature) => ({ ...good, payload: { signature } }),
    /payload\.authorization is missing/,
  ],
  [
    'authorization an array',
    (good, authorization, signature) => ({ ...good, payload: { signature, authorization: [authorization] } }),
    /payload\.authorization/,
  ],
  [
    'value the string 1e400',
    changedAuthorization(() => ({ value: '1e400' })),
    /payload\.authorization\.value/,
  ],
  [
    'value above 2^256',
    changedAuthorization(() => ({ value: (2n ** 256n).toString() })),
    /payload\.authorization\.value/,
  ],
  [
    'validBefore a number, not a string',
    changedAuthorization(({ validBefore }) => ({ validBefore: Number(validBefore) })),
    /payload\.authorization\.validBefore/,
  ],
  [
    'from not an address',
    changedAuthorization(() => ({ from: 'not-an-address' })),
    /payload\.authorization\.from/,
  ],
  [
    'to with a broken checksum',
    changedAuthorization(({ to }) => ({ to: brokenChecksum(to ?? '') })),
    /payload\.authorization\.to/,
  ],
  ['nonce too short', changedAuthorization(() => ({ nonce: '0x1234' })), /payload\.authorization\.nonce/],
  [
    'the authorization moved under extensions, the signature without 0x',
    (good, authorization, signature) => ({
      ...good,
      payload: { signature: signature.slice(2) },
      extensions: { ...good.extensions, authorization },
    }),
    /payload\.(signature|authorization)/,
  ],
  [
    'a signature of odd length',
    (good, authorization, signature) => ({ ...good, payload: { signature: `${signature}0`, authorization } }),
    /payload\.signature/,
  ],
  [
    'a Permit2 authorization beside the EIP-3009 one',
    (good, authorization, signature) => ({
      ...good,
      payload: { signature, authorization, permit2Authorization: { from: authorization.from } },
    }),
    /payload\.permit2Authorization/,
  ],
];

/** Well-formed payloads whose signature cannot be the payer's: verification refuses them (402). */
const UNUSABLE_SIGNATURES: [string, string][] = [
  ['one byte', '0x00'],
  ['65 zero bytes', `0x${'00'.repeat(65)}`],
  ['64 bytes', `0x${'ab'.repeat(64)}`],
  ['an ERC-6492 wrapper around nothing', `0x${'00'.repeat(96)}${'6492'.repeat(16)}`],
];

function paymentIntegrityTests(target: () => Target): void {
  describe('a signature buys exactly what it was signed for', () => {
    it.for(PAIRS)('%s: 402 with the reason, nothing run or charged', async ([, signedAt, presentedAt]) => {
      const t = target();
      const payer = await newPayer(t.chain);
      const payment = await clientFor(payer).createPaymentPayload(await challengeAt(t, signedAt));

      const refused = await present(t, presentedAt, payment, t.domain);
      expect(refused.delivered).toBe(false);
      if (presentedAt.transport === 'http') expect(refused.status).toBe(402);
      expect(refused.code).toBe('payment_required');
      expect(refused.reason).toMatch(/^resource_mismatch: the payment was signed for \S+, not \S+/);
      expect(refused.reason).toContain(signedAt.name);
      expect(refused.x402Error).toBe(refused.reason);
      expect(await t.chain.balanceOf(payer.address)).toBe(FUNDS);

      // The refused payload was never used: it still buys what it was signed for, for another domain.
      const bought = await present(t, signedAt, payment, t.otherDomain);
      expect(bought.delivered).toBe(true);
      expect(await t.chain.balanceOf(payer.address)).toBe(FUNDS - 10_000n);
    });
  });

  describe('a malformed payment is a 402 naming the field, not a payments outage', () => {
    const cases = [CERT_HTTP, CERT_MCP].flatMap((place) =>
      MALFORMED.map(
        ([name, mangle, field]) => [`${place.transport}: ${name}`, place, mangle, field] as const,
      ),
    );
    it.for(cases)('%s', async ([, place, mangle, field]) => {
      const t = target();
      const payer = await newPayer(t.chain);
      const good = await clientFor(payer).createPaymentPayload(await challengeAt(t, place));
      const { authorization, signature } = good.payload as {
        authorization: Authorization;
        signature: string;
      };
      const logFrom = t.logs().length;

      const answer = await present(t, place, mangle(good, authorization, signature), t.domain);
      expect(answer.delivered).toBe(false);
      if (place.transport === 'http') {
        expect(answer.status).toBe(402);
        expect(answer.retryAfter).toBeNull();
      }
      expect(answer.code).toBe('payment_required');
      expect(answer.reason).toMatch(/^invalid_exact_evm_payload: /);
      expect(answer.reason).toMatch(field);
      expect(answer.x402Error).toBe(answer.reason);
      expect(await t.chain.balanceOf(payer.address)).toBe(FUNDS);
      // The request's own log line has arrived, and no line says payments are unavailable.
      await expect.poll(() => t.logs().slice(logFrom)).toContain('"msg":"request"');
      expect(t.logs().slice(logFrom)).not.toMatch(/unavailable/i);
    });

    it.for(UNUSABLE_SIGNATURES)(
      'a well-formed payload with a signature of %s: 402 from verification',
      async ([, bad]) => {
        const t = target();
        const payer = await newPayer(t.chain);
        const good = await clientFor(payer).createPaymentPayload(await challengeAt(t, CERT_HTTP));
        const { authorization } = good.payload as { authorization: Authorization };
        const logFrom = t.logs().length;

        const answer = await present(
          t,
          CERT_HTTP,
          { ...good, payload: { signature: bad, authorization } },
          t.domain,
        );
        expect(answer.status).toBe(402);
        expect(answer.reason).toMatch(/^invalid_exact_evm_/);
        expect(await t.chain.balanceOf(payer.address)).toBe(FUNDS);
        await expect.poll(() => t.logs().slice(logFrom)).toContain('"msg":"request"');
        expect(t.logs().slice(logFrom)).not.toMatch(/unavailable/i);
      },
    );
  });
}

describe('on Node', () => {
  let service: PaidMcpService;
  let target: Target;
  beforeAll(async () => {
    service = await startPaidMcpService();
    target = {
      chain: service.chain,
      base: new URL(service.config.publicBaseUrl),
      domain: 'example.com',
      otherDomain: 'example.org',
      mcp: await service.connect(),
      logs: service.logs,
    };
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });
  paymentIntegrityTests(() => target);
});

describe('on the Worker in local workerd', () => {
  let world: World;
  let chain: LocalChain;
  let edge: EdgeService;
  let target: Target;
  beforeAll(async () => {
    let bundle;
    [world, chain, bundle] = await Promise.all([startWorld(), startLocalChain(), buildWorker()]);
    edge = await startEdgeService({ world, chain, bundle });
    const [base] = edge.urls;
    if (!base) throw new Error('the Worker has no URL');
    const mcp = new Client({ name: 'payments-integrity', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
    target = {
      chain,
      base,
      domain: 'healthy-shop.com',
      otherDomain: 'renewal-due.net',
      mcp,
      logs: edge.output,
    };
  }, 120_000);
  afterAll(async () => {
    await target?.mcp.close();
    await edge?.stop();
    await Promise.all([world?.close(), chain?.stop()]);
  });
  paymentIntegrityTests(() => target);
});
