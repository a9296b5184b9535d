/**
 * The app with its MCP endpoint served on 127.0.0.1 (port 0), wired as main.ts wires it: one resource
 * server and one in-flight lock shared by the HTTP payment gate and `/mcp`, runners on a counting
 * loopback upstream. `connect()` opens the official 1.x MCP client over Streamable HTTP,
 * `connectV2(mode)` the official 2.x client in one of its version negotiation modes.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { FacilitatorClient } from '@x402/core/server';
import type { Facilitator } from '../../src/payments/facilitator/facilitator.ts';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { pino } from 'pino';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { createFacilitator } from '../../src/payments/facilitator/facilitator.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { createPayments } from '../../src/payments/payments.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from './check-upstream.ts';

export interface McpService {
  config: Config;
  /** The MCP endpoint, on `localhost` (the conformance suite's DNS-rebinding check needs that name). */
  mcpUrl: URL;
  upstream: CheckUpstream;
  /** Checks that ran: requests that reached the upstream. */
  runs(): number;
  /** The service's log so far (JSON lines, info and above). */
  logs(): string;
  /** A connected official 1.x MCP client (MCP 2025-11-25); closed by `close()`. */
  connect(): Promise<Client>;
  /** A connected official 2.x MCP client negotiating with `mode`; closed by `close()`. */
  connectV2(mode: NegotiationMode): Promise<ClientV2>;
  close(): Promise<void>;
}

/**
 * The 2.x client's `versionNegotiation.mode`: `legacy` (the 2025 `initialize` handshake), `auto`
 * (probe `server/discover`, fall back) or a pin to MCP 2026-07-28 (no fallback).
 */
export type NegotiationMode = 'legacy' | 'auto' | 'pin-2026';

export function negotiation(mode: NegotiationMode) {
  return { mode: mode === 'pin-2026' ? { pin: '2026-07-28' } : mode };
}

/** Either official client: what the helpers below need to call a tool. */
export interface ToolCaller {
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<unknown>;
}

export interface McpServiceOptions {
  /** A bare client (a fake), or the full facilitator with its chain view for reconciliation. */
  facilitator: FacilitatorClient | Facilitator;
  payTo: `0x${string}`;
}

export async function startMcpService({ facilitator, payTo }: McpServiceOptions): Promise<McpService> {
  const upstream = await startCheckUpstream();
  const loaded = loadConfig({ LOG_LEVEL: 'silent' });
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const clients: { close(): Promise<void> }[] = [];

  // The public base URL must be known before the routes are built, so listen first on an app shell.
  let handle: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const server = serve({ fetch: (request) => handle(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const config: Config = {
    ...loaded,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    x402: { ...loaded.x402, payTo },
  };
  const payments = createPayments({
    config,
    logger,
    facilitator: 'client' in facilitator ? facilitator : { client: facilitator },
  });
  const app = createApp({ config, runners: upstreamRunners(upstream), logger, payments });
  handle = (request) => app.fetch(request);
  const mcpUrl = new URL(`http://localhost:${port}/mcp`);

  return {
    config,
    mcpUrl,
    upstream,
    runs: () => upstream.requests.length,
    logs: () => lines.join(''),
    async connect() {
      const client = new Client({ name: 'website-checks-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl));
      clients.push(client);
      return client;
    },
    async connectV2(mode) {
      const client = new ClientV2(
        { name: 'website-checks-e2e', version: '2.0.0' },
        { versionNegotiation: negotiation(mode) },
      );
      await client.connect(new TransportV2(mcpUrl));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      });
      await upstream.close();
    },
  };
}

/** `tools/call` with the official client; `meta` becomes the request's `_meta`. */
export async function callTool(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({
    name,
    arguments: args,
    ...(meta ? { _meta: meta } : {}),
  })) as CallToolResult;
}

/** Test-USDC balances in atomic units: a payer's and the service's recipient's. */
export interface Balances {
  payer: bigint;
  payTo: bigint;
}

/** A freshly funded payer and its signed payment for one tool's challenge. */
export interface SignedPayment {
  payer: PrivateKeyAccount;
  challenge: PaymentRequired;
  payment: PaymentPayload;
}

/** The MCP service paying on a real local chain through the in-process facilitator. */
export interface PaidMcpService extends McpService {
  chain: LocalChain;
  /** A new key holding `atomicAmount` test USDC. */
  newPayer(atomicAmount: bigint): Promise<PrivateKeyAccount>;
  /** A PaymentPayload for `challenge`, signed by `payer` with the official x402 client. */
  sign(payer: PrivateKeyAccount, challenge: PaymentRequired): Promise<PaymentPayload>;
  /** A new payer holding 1 USDC signs the challenge `tool` answers for example.com. */
  signedPayment(client: ToolCaller, tool: string): Promise<SignedPayment>;
  balances(payer: PrivateKeyAccount): Promise<Balances>;
}

export async function startPaidMcpService(): Promise<PaidMcpService> {
  const chain = await startLocalChain();
  const facilitator = createFacilitator(loadConfig({ LOG_LEVEL: 'silent' }), chain);
  const service = await startMcpService({ facilitator, payTo: chain.payTo });
  const newPayer = async (atomicAmount: bigint) => {
    const account = privateKeyToAccount(generatePrivateKey());
    if (atomicAmount > 0n) await chain.fund(account.address, atomicAmount);
    return account;
  };
  const sign = (payer: PrivateKeyAccount, challenge: PaymentRequired) =>
    x402Client
      .fromConfig({ schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(payer) }] })
      .createPaymentPayload(challenge);
  return {
    ...service,
    chain,
    newPayer,
    sign,
    async signedPayment(client, tool) {
      const payer = await newPayer(1_000_000n);
      const unpaid = await callTool(client, tool, { domain: 'example.com' });
      const challenge = unpaid.structuredContent as unknown as PaymentRequired;
      return { payer, challenge, payment: await sign(payer, challenge) };
    },
    balances: async (payer) => ({
      payer: await chain.balanceOf(payer.address),
      payTo: await chain.balanceOf(chain.payTo),
    }),
    async close() {
      await service.close();
      await chain.stop();
    },
  };
}
