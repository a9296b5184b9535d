/**
 * The paid service end to end on loopback: a local anvil chain (Base 8453, test USDC), the in-process
 * facilitator on it, the real payment gate and app on 127.0.0.1, and runners that call a counting
 * upstream. Payers are fresh keys funded on the chain, signing with the official x402 client.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { pino } from 'pino';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { createPayments, type SharedPaymentState } from '../../src/payments/payments.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from './check-upstream.ts';
import { clientFor, payingFetchFor } from './payer-client.ts';

/** A payer account and the private key it was made from (for the CLI's X402_PRIVATE_KEY). */
export type Payer = PrivateKeyAccount & { privateKey: `0x${string}` };

export interface PaidService {
  chain: LocalChain;
  config: Config;
  /** Base URL of the app on loopback, e.g. `http://127.0.0.1:41234`. */
  url: URL;
  upstream: CheckUpstream;
  /** Requests that reached the upstream, i.e. checks that ran. */
  runs(): number;
  /** Resolves once the app has finished every request it is handling (answered, settled or not). */
  idle(): Promise<void>;
  /** A new key holding `atomicAmount` test USDC. */
  newPayer(atomicAmount: bigint): Promise<Payer>;
  /** The decoded challenge of `path` (an unpaid GET). */
  challenge(path: string): Promise<PaymentRequired>;
  /** A payload signed by `payer` with the official client for `challenge` (default: the route's own). */
  sign(payer: PrivateKeyAccount, challenge: PaymentRequired): Promise<PaymentPayload>;
  /** `fetch` that pays as `payer` with the official `@x402/fetch` wrapper. */
  payingFetch(payer: PrivateKeyAccount): typeof fetch;
  close(): Promise<void>;
}

/** `shared`: the payment state in a shared store instead of this process's memory (the bench compares them). */
export async function startPaidService(shared?: SharedPaymentState): Promise<PaidService> {
  const chain = await startLocalChain();
  const upstream = await startCheckUpstream();
  const loaded = loadConfig({ LOG_LEVEL: 'silent' });
  // Local-chain mode: the embedded chain supplies the recipient, as main.ts does.
  let config: Config = { ...loaded, x402: { ...loaded.x402, payTo: chain.payTo } };
  const logger = pino({ level: 'silent' });

  // The public base URL must be known before the routes are built, so listen first on an app shell.
  let handle: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const server = serve({ fetch: (request) => handle(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  config = { ...config, publicBaseUrl: url.origin };
  const payments = createPayments({ config, logger, local: chain, ...(shared ? { shared } : {}) });
  const app = createApp({ config, runners: upstreamRunners(upstream), logger, payments });
  const handling = new Set<Promise<unknown>>();
  handle = (request) => {
    const answer = Promise.resolve(app.fetch(request));
    const tracked = answer.catch(() => {}).finally(() => handling.delete(tracked));
    handling.add(tracked);
    return answer;
  };

  return {
    chain,
    config,
    url,
    upstream,
    runs: () => upstream.requests.length,
    async idle() {
      while (handling.size > 0) await Promise.all(handling);
    },
    async newPayer(atomicAmount) {
      const privateKey = generatePrivateKey();
      const account = Object.assign(privateKeyToAccount(privateKey), { privateKey });
      if (atomicAmount > 0n) await chain.fund(account.address, atomicAmount);
      return account;
    },
    async challenge(path) {
      const res = await fetch(new URL(path, url));
      await res.arrayBuffer();
      return decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    },
    sign: (payer, challenge) => clientFor(payer).createPaymentPayload(challenge),
    payingFetch: payingFetchFor,
    async close() {
      await new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      });
      await upstream.close();
      await chain.stop();
    },
  };
}
