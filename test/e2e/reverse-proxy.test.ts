/**
 * The service behind Debian's nginx with its default proxy settings (test/world/nginx.ts): every
 * route, free and paid, unpaid and paid, passes through unchanged, the largest challenge a request
 * can draw (the longest query a paid route takes, the longest request id echoed) included, and a
 * paid call on each paid route through it is charged exactly its price once, read on the chain.
 * Before, nginx answered every paid route's 402 with 502 ("upstream sent too big header") and a
 * paid site-health call with 400 (its `PAYMENT-SIGNATURE` over 8 KiB).
 */
import { createPublicClient, erc20Abi, http } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidOperations, WATCHES_ROUTE } from '../../src/catalog.ts';
import { DOCUMENT_PATHS } from '../../src/vocabulary/document-paths.ts';
import { FAVICON, PAGE_ASSETS } from '../../src/vocabulary/page-assets.ts';
import { MAX_PAID_QUERY } from '../../src/http/payment-gate.ts';
import { startWorld, type World } from '../world/index.ts';
import { type Nginx, startNginx } from '../world/nginx.ts';
import { payingFetchFor } from '../world/payer-client.ts';
import { type ServiceProcess, startServiceProcess } from '../world/service-process.ts';
import { type CaFile, writeCaFile } from '../world/test-ca.ts';

const DOMAIN = 'healthy-shop.com';
const BANNER_TIMEOUT_MS = 10_000;
/** The longest request id the service echoes (`standard-headers.ts`). */
const LONGEST_REQUEST_ID = 'r'.repeat(255);
/** Headers nginx writes itself, and the ones that move from one request to the next. */
const OWN_OR_MOVING = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'server',
  'ratelimit-remaining',
  'ratelimit-reset',
]);

let world: World;
let ca: CaFile;
let service: ServiceProcess;
let nginx: Nginx;
let payer: PrivateKeyAccount;
let balanceOf: (asset: `0x${string}`, address: `0x${string}`) => Promise<bigint>;

beforeAll(async () => {
  world = await startWorld();
  ca = await writeCaFile(world.site.caPem);
  service = await startServiceProcess({ ...world.env, NODE_EXTRA_CA_CERTS: ca.path });
  const banner = await bannerOf(service);
  payer = privateKeyToAccount(banner.demoKey);
  const chain = createPublicClient({ transport: http(banner.rpc) });
  balanceOf = (asset, address) =>
    chain.readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  nginx = await startNginx(service.url);
}, 90_000);

afterAll(async () => {
  await nginx?.close();
  await service?.stop();
  await world?.close();
  await ca?.remove();
});

/** The embedded chain's RPC and demo payer, from the banner `npm start` prints. */
async function bannerOf(started: ServiceProcess): Promise<{ rpc: string; demoKey: `0x${string}` }> {
  const deadline = performance.now() + BANNER_TIMEOUT_MS;
  for (;;) {
    const output = started.output();
    const rpc = /^\s*RPC:\s+(\S+)/m.exec(output)?.[1];
    const demoKey = /X402_PRIVATE_KEY=(0x[0-9a-f]{64})/.exec(output)?.[1] as `0x${string}` | undefined;
    if (rpc && demoKey) return { rpc, demoKey };
    if (performance.now() > deadline) throw new Error(`no local chain banner:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function send(
  base: URL,
  { method = 'GET', path, headers = {}, body }: Sent,
  id: string,
): Promise<Seen> {
  const res = await fetch(new URL(path, base), {
    method,
    headers: { 'x-request-id': id, ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const kept: Record<string, string> = {};
  for (const [name, value] of res.headers) if (!OWN_OR_MOVING.has(name)) kept[name] = value;
  return { status: res.status, headers: kept, body: await res.text() };
}

/**
 * `seen` with a sign-in challenge's nonce and times blanked in its header and body: they are fresh
 * in every answer, and everything else must pass unchanged.
 */
function withoutFreshSignIn(seen: Seen): Seen {
  const header = seen.headers['payment-required'];
  if (!header || !decodePaymentRequiredHeader(header).extensions?.['sign-in-with-x']) return seen;
  return {
    ...seen,
    headers: {
      ...seen.headers,
      'payment-required': JSON.stringify(blank(decodePaymentRequiredHeader(header))),
    },
    body: seen.body === '' ? '' : JSON.stringify(blank(JSON.parse(seen.body))),
  };
}

/** `value` with the nonce and times of every sign-in-with-x `info` in it blanked. */
function blank(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(blank);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([key, inner]) => [key, blank(inner)] as const);
  const copy: Record<string, unknown> = Object.fromEntries(entries);
  const signIn = copy['sign-in-with-x'] as { info?: Record<string, unknown> } | undefined;
  if (signIn?.info) {
    const info = { ...signIn.info, nonce: 'fresh', issuedAt: 'fresh', expirationTime: 'fresh' };
    copy['sign-in-with-x'] = { ...signIn, info };
  }
  return copy;
}

/** The same request directly and through nginx: the same answer, bar what nginx writes itself. */
async function expectPassedUnchanged(request: Sent, id: string = crypto.randomUUID()): Promise<Seen> {
  const direct = withoutFreshSignIn(await send(service.url, request, id));
  const proxied = withoutFreshSignIn(await send(nginx.url, request, id));
  const what = `${request.method ?? 'GET'} ${request.path.slice(0, 80)}`;
  expect(proxied.status, what).toBe(direct.status);
  if (request.path === '/metrics') {
    // The metrics count the request that reads them: the same headers bar the length.
    const { 'content-length': _direct, ...directHeaders } = direct.headers;
    const { 'content-length': _proxied, ...proxiedHeaders } = proxied.headers;
    expect(proxiedHeaders, what).toEqual(directHeaders);
  } else {
    expect(proxied.headers, what).toEqual(direct.headers);
    expect(proxied.body, what).toBe(direct.body);
  }
  return proxied;
}

const unpaid = (path: string): Sent => ({ path });
const watchBody = JSON.stringify({ domain: DOMAIN });
const buyWatch = (headers: Record<string, string> = {}): Sent => ({
  method: 'POST',
  path: WATCHES_ROUTE,
  headers: { 'content-type': 'application/json', ...headers },
  body: watchBody,
});

describe('behind nginx with its default proxy settings', () => {
  it('passes every free route and every unpaid challenge unchanged', async () => {
    const free: Sent[] = [
      ...Object.values(DOCUMENT_PATHS)
        .filter((path) => path !== DOCUMENT_PATHS.mcp)
        .map(unpaid),
      { path: '/', headers: { accept: 'text/html' } },
      unpaid('/robots.txt'),
      ...FAVICON.paths.map(unpaid),
      ...Object.values(PAGE_ASSETS).map((asset) => unpaid(asset.path)),
      unpaid('/readyz'),
      unpaid('/metrics'),
      unpaid(`/v1/validate?domain=${DOMAIN}`),
      unpaid('/v1/cert'),
      unpaid('/no-such-route'),
      unpaid('/v1/watches/no-such-watch'),
      {
        method: 'POST',
        path: DOCUMENT_PATHS.mcp,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      },
    ];
    for (const request of free) await expectPassedUnchanged(request);

    // The largest challenge of each paid route: its longest query, the longest request id echoed.
    const longest = (route: string) => {
      const query = `domain=${DOMAIN}&pad=`;
      return `${route}?${query}${'x'.repeat(MAX_PAID_QUERY - query.length)}`;
    };
    for (const operation of paidOperations) {
      for (const path of [`${operation.route}?domain=${DOMAIN}`, longest(operation.route)]) {
        for (const method of ['GET', 'HEAD']) {
          const seen = await expectPassedUnchanged({ method, path }, LONGEST_REQUEST_ID);
          expect(seen.status, path).toBe(402);
          expect(decodePaymentRequiredHeader(seen.headers['payment-required'] ?? '').accepts).toHaveLength(1);
        }
      }
      // One character more: 414 from the service, before any payment logic.
      expect((await expectPassedUnchanged(unpaid(`${longest(operation.route)}x`))).status).toBe(414);
    }
    expect((await expectPassedUnchanged(buyWatch(), LONGEST_REQUEST_ID)).status).toBe(402);
    expect(await nginx.errors()).not.toMatch(/too big header|error/);
  }, 120_000);

  it('takes a paid call on each paid route through it, each charged its price once', async () => {
    const pay = payingFetchFor(payer);
    const calls = [
      ...paidOperations.map((operation) => ({
        what: operation.route,
        request: unpaid(`${operation.route}?domain=${DOMAIN}`),
        status: 200,
      })),
      // The largest signature a challenge draws: site-health's, with the longest query.
      {
        what: 'site-health, longest query',
        request: unpaid(
          `/v1/site-health?domain=${DOMAIN}&pad=${'x'.repeat(MAX_PAID_QUERY - `domain=${DOMAIN}&pad=`.length)}`,
        ),
        status: 200,
      },
      { what: WATCHES_ROUTE, request: buyWatch(), status: 201 },
    ];
    for (const { what, request, status } of calls) {
      const url = new URL(request.path, nginx.url);
      const init = { method: request.method ?? 'GET', headers: request.headers, body: request.body };
      const challenge = await fetch(url, init);
      await challenge.arrayBuffer();
      const [terms] = decodePaymentRequiredHeader(challenge.headers.get('payment-required') ?? '').accepts;
      if (!terms) throw new Error(`${what}: no accepts entry`);
      const asset = terms.asset as `0x${string}`;
      const before = await balanceOf(asset, payer.address);

      const res = await pay(url, init);
      const body = await res.text();
      expect(res.status, `${what}: ${body.slice(0, 300)}`).toBe(status);
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
      expect(receipt.transaction, what).toMatch(/^0x[0-9a-f]{64}$/);
      expect(before - (await balanceOf(asset, payer.address)), what).toBe(BigInt(terms.amount));
    }
    expect(await nginx.errors()).not.toMatch(/too big header|error/);
  }, 180_000);
});
