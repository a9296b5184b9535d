/**
 * The app with its MCP endpoint served on 127.0.0.1 (port 0), wired as main.ts wires it: one resource
 * server and one in-flight lock shared by the HTTP payment gate and `/mcp`, runners on a counting
 * loopback upstream. `connect()` opens the official MCP SDK client over Streamable HTTP.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { pino } from 'pino';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { createFacilitatorClient } from '../../src/payments/facilitator.ts';
import { createPaymentGate } from '../../src/payments/gate.ts';
import { createInFlightLock } from '../../src/payments/in-flight-lock.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/local-chain.ts';
import { createResourceServer } from '../../src/payments/resource-server.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from './check-upstream.ts';

export interface McpService {
  config: Config;
  /** The MCP endpoint, on `localhost` (the conformance suite's DNS-rebinding check needs that name). */
  mcpUrl: URL;
  upstream: CheckUpstream;
  /** Checks that ran: requests that reached the upstream. */
  runs(): number;
  /** A connected official MCP client; closed by `close()`. */
  connect(): Promise<Client>;
  close(): Promise<void>;
}

export interface McpServiceOptions {
  facilitator: FacilitatorClient;
  payTo: `0x${string}`;
}

export async function startMcpService({ facilitator, payTo }: McpServiceOptions): Promise<McpService> {
  const upstream = await startCheckUpstream();
  const loaded = loadConfig({ LOG_LEVEL: 'silent' });
  const logger = pino({ level: 'silent' });
  const clients: Client[] = [];

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
  const resourceServer = createResourceServer(facilitator, config.x402.network);
  const lock = createInFlightLock();
  const paymentGate = createPaymentGate({ resourceServer, config, logger, lock });
  const app = createApp({
    config,
    runners: upstreamRunners(upstream),
    logger,
    paymentGate,
    mcp: { resourceServer, lock },
  });
  handle = (request) => app.fetch(request);
  const mcpUrl = new URL(`http://localhost:${port}/mcp`);

  return {
    config,
    mcpUrl,
    upstream,
    runs: () => upstream.requests.length,
    async connect() {
      const client = new Client({ name: 'website-checks-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl));
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

/** The MCP service paying on a real local chain through the in-process facilitator. */
export interface PaidMcpService extends McpService {
  chain: LocalChain;
  /** A new key holding `atomicAmount` test USDC. */
  newPayer(atomicAmount: bigint): Promise<PrivateKeyAccount>;
  /** A PaymentPayload for `challenge`, signed by `payer` with the official x402 client. */
  sign(payer: PrivateKeyAccount, challenge: PaymentRequired): Promise<PaymentPayload>;
}

export async function startPaidMcpService(): Promise<PaidMcpService> {
  const chain = await startLocalChain();
  const facilitator = createFacilitatorClient(loadConfig({ LOG_LEVEL: 'silent' }), chain);
  const service = await startMcpService({ facilitator, payTo: chain.payTo });
  return {
    ...service,
    chain,
    async newPayer(atomicAmount) {
      const account = privateKeyToAccount(generatePrivateKey());
      if (atomicAmount > 0n) await chain.fund(account.address, atomicAmount);
      return account;
    },
    sign: (payer, challenge) =>
      x402Client
        .fromConfig({ schemes: [{ network: 'eip155:8453', client: new ExactEvmScheme(payer) }] })
        .createPaymentPayload(challenge),
    async close() {
      await service.close();
      await chain.stop();
    },
  };
}
