/**
 * The Worker in local workerd, offline, with the same assertions as against Node: the HTTP contract
 * (402 challenge, paid 200 with receipt, 400 never charged, 502 never settled, site-health partial,
 * discovery documents identical to Node's), MCP with the official clients (both eras), one signature running once
 * across two isolates, and 20 concurrent self-settlements through the settler object, each proven
 * by balances on the chain. Payments use the official `@x402/fetch` client on a local anvil.
 */
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { wrapFetchWithPayment } from '@x402/fetch';
import pino from 'pino';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, type WorkerBundle } from '../../scripts/local-edge.ts';
import { paidOperations, usdToAtomic } from '../../src/catalog.ts';
import { loadConfig } from '../../src/config.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { SERVED_CHAIN_CODES } from '../../src/checks/cert/unjudged.ts';
import { createService } from '../../src/service.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { storeWatchRuntime } from '../../src/watches/runtime.ts';
import { openSqliteWatchStore } from '../../src/sqlite/watch-store.ts';
import { type EdgeService, startEdgeService } from '../world/edge-service.ts';
import { FAKE_TX_HASH, type FakeFacilitator, startFakeFacilitator } from '../world/facilitator.ts';
import { newestCertificate, worldCertId } from '../world/acme.ts';
import { startWorld, type World } from '../world/index.ts';
import { payFor } from '../world/paying-clients.ts';
import { clientFor } from '../world/payer-client.ts';
import { type RpcFaultProxy, startRpcFaultProxy } from '../world/rpc-fault-proxy.ts';
import { freePort } from '../support/free-port.ts';

const FUNDS = 1_000_000n; // 1 USDC
const DOMAIN = 'healthy-shop.com';

let world: World;
let chain: LocalChain;
let bundle: WorkerBundle;
let edge: EdgeService;
/** Between the Worker (its isolates and its settler object) and the chain. */
let rpc: RpcFaultProxy;

beforeAll(async () => {
  [world, chain, bundle] = await Promise.all([startWorld(), startLocalChain(), buildWorker()]);
  rpc = await startRpcFaultProxy(chain.rpcUrl);
  edge = await startEdgeService({
    world,
    chain,
    bundle,
    instances: 2,
    variables: { X402_RPC_URL: rpc.url.href },
  });
}, 120_000);
afterAll(async () => {
  await edge?.stop();
  rpc?.release();
  await Promise.all([world?.close(), chain?.stop(), rpc?.close()]);
});
afterEach(() => {
  world.reset();
  rpc.reset();
});

const at = (path: string, instance = 0) => new URL(path, edge.urls[instance]);

async function newPayer(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.fund(account.address, FUNDS);
  return account;
}

const balances = (...addresses: `0x${string}`[]) => Promise.all(addresses.map((a) => chain.balanceOf(a)));

async function challenge(path: string): Promise<PaymentRequired> {
  const res = await fetch(at(path));
  await res.arrayBuffer();
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
}

describe('the Worker in workerd', () => {
  it('bundles under the Workers size limit', () => {
    // Workers Free allows 3 MiB compressed (Paid: 10 MiB).
    expect(bundle.gzipKiB).toBeLessThan(3 * 1024);
  });

  it('answers the free routes: health, validate, and 400 for an invalid domain', async () => {
    expect(await (await fetch(at('/health'))).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(at('/v1/validate?domain=B%C3%BCcher.example.DE'))).json()).toMatchObject({
      valid: true,
      domain: 'xn--bcher-kva.example.de',
    });
    const invalid = await fetch(at('/v1/cert?domain=exa_mple..com'));
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('payment-required')).toBeNull();
    expect(await invalid.json()).toMatchObject({ code: 'invalid_domain' });
  });

  it('serves the same discovery documents as the Node service configured alike', async () => {
    const node = createService(loadConfig(edge.variables), {
      logger: pino({ level: 'silent' }),
      reach: nodeReach(world.site.caPem),
    });
    const paths = [
      '/openapi.json',
      '/.well-known/x402',
      '/llms.txt',
      '/.well-known/api-catalog',
      '/sitemap.xml',
      '/mcp/server-card',
      '/.well-known/ai-catalog.json',
      '/robots.txt',
    ];
    for (const path of paths) {
      const [fromEdge, fromNode] = await Promise.all([fetch(at(path)), node.app.request(path)]);
      expect(fromEdge.status, path).toBe(200);
      expect(fromEdge.headers.get('content-type'), path).toBe(fromNode.headers.get('content-type'));
      expect(await fromEdge.text(), path).toBe(await fromNode.text());
    }
    // Compressed documents arrive compressed once, not twice.
    const br = await fetch(at('/openapi.json'), { headers: { 'accept-encoding': 'br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(await br.json()).toMatchObject({ openapi: '3.1.0' });
  });

  it('challenges an unpaid paid route with 402 and the x402 v2 terms', async () => {
    const required = await challenge(`/v1/cert?domain=${DOMAIN}`);
    expect(required.x402Version).toBe(2);
    expect(required.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '10000',
      payTo: chain.payTo,
    });
    // The requested URL with its own query: a listing crawler probes exactly what a 402 names.
    expect(required.resource?.url).toBe(`${edge.urls[0]?.origin}/v1/cert?domain=${DOMAIN}`);
  });

  it.each(paidOperations.map((op) => [op.route, op] as const))(
    '%s: paid 200 with receipt; the payer pays the price, once',
    async (route, op) => {
      const payer = await newPayer();
      const [payTo0 = 0n] = await balances(chain.payTo);
      const res = await wrapFetchWithPayment(fetch, clientFor(payer))(at(`${route}?domain=${DOMAIN}`));
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        domain: string;
        live_probe?: { ok: boolean };
        renewal?: { ari: { cert_id: string } | null };
      };
      expect(body.domain).toBe(DOMAIN);
      if (route === '/v1/cert') {
        expect(body.live_probe).toMatchObject({ ok: true, http_status: 200, serves_newest: null });
        // The Worker reads no peer certificate: the CertID comes from CT's bytes, and the CA answers.
        expect(body.renewal).toMatchObject({
          ari: { status: 'ok', ca: 'letsencrypt' },
          stall: { basis: 'ari' },
        });
        expect(body.renewal?.ari?.cert_id).toBe(
          await worldCertId(world.certificates, newestCertificate(world.scenarios, DOMAIN)),
        );
      }
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
      expect(receipt).toMatchObject({ success: true, network: 'eip155:8453' });
      const price = BigInt(usdToAtomic(op.priceUsd));
      expect(await balances(payer.address, chain.payTo)).toEqual([FUNDS - price, payTo0 + price]);
    },
  );

  it('cannot read the served certificate: serves_newest null where Node finds one renewed but not deployed', async () => {
    const payer = await newPayer();
    const res = await wrapFetchWithPayment(fetch, clientFor(payer))(at('/v1/cert?domain=stale-deploy.net'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      live_probe: { ok: boolean; serves_newest: boolean | null };
      findings: { code: string }[];
    };
    expect(body.live_probe).toMatchObject({ ok: true, http_status: 200, serves_newest: null });
    expect(body.findings.map((finding) => finding.code)).not.toContain('cert.renewed_not_deployed');
  });

  it.each([
    ['cdn-backup-healthy.com', 'ok'],
    ['cdn-backup-stalled.net', 'ok'],
    ['moved-to-gts.org', 'ok'],
    ['undeployed-move.net', 'ok'],
  ])(
    "%s: without the served leaf the verdict is about CT's newest certificate, and the result says so",
    async (domain, stall) => {
      const payer = await newPayer();
      const res = await wrapFetchWithPayment(fetch, clientFor(payer))(at(`/v1/cert?domain=${domain}`));
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        certificate: { serial: string };
        judged: { source: string; reason: string };
        other_ca_certificate: unknown;
        renewal: { stall: { status: string }; ari: { cert_id: string } | null };
      };
      const newest = newestCertificate(world.scenarios, domain);
      expect(body.judged).toEqual({
        source: 'ct_newest',
        reason: expect.stringMatching(/Cloudflare Workers/),
        served_chain: 'not_read',
        // What only the served chain shows is not judged, and says so (a watch carries it over).
        unjudged: [...SERVED_CHAIN_CODES],
      });
      expect(body.certificate.serial).toBe(newest.serial);
      expect(body.renewal.stall.status).toBe(stall);
      expect(body.renewal.ari?.cert_id).toBe(await worldCertId(world.certificates, newest));
      expect(body.other_ca_certificate).toBeNull();
    },
  );

  it('refuses a replay of a delivered payment with 402: a result that arrived is not claimable again', async () => {
    const payer = await newPayer();
    const path = `/v1/expiry?domain=${DOMAIN}`;
    const header = encodePaymentSignatureHeader(
      await clientFor(payer).createPaymentPayload(await challenge(path)),
    );
    const first = await fetch(at(path, 0), { headers: { 'payment-signature': header } });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    for (const instance of [0, 1]) {
      const replay = await fetch(at(path, instance), { headers: { 'payment-signature': header } });
      await replay.arrayBuffer();
      expect(replay.status).toBe(402);
    }
    expect(await balances(payer.address)).toEqual([FUNDS - 10_000n]);
  });

  it('reconciles in the settler object: a send whose answer was lost is found on chain, delivered, charged once', async () => {
    const payer = await newPayer();
    rpc.rule('eth_sendRawTransaction', { respond: 'reset' });
    const res = await wrapFetchWithPayment(fetch, clientFor(payer))(at(`/v1/dns?domain=${DOMAIN}`, 1));
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') ?? '')).toMatchObject({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    await res.arrayBuffer();
    expect(rpc.calls('eth_sendRawTransaction').length).toBeGreaterThan(0);
    expect(await balances(payer.address)).toEqual([FUNDS - 10_000n]);
  });

  it('never charges a 400: the paying client is refused before any challenge', async () => {
    const payer = await newPayer();
    const res = await wrapFetchWithPayment(fetch, clientFor(payer))(at('/v1/dns?domain=localhost'));
    expect(res.status).toBe(400);
    expect(await balances(payer.address)).toEqual([FUNDS]);
  });

  it('never settles a 502: every CT source down', async () => {
    const payer = await newPayer();
    const [payTo0] = await balances(chain.payTo);
    world.crtsh.mode = 'bad_gateway';
    world.certspotter.mode = 'server_error';
    const res = await wrapFetchWithPayment(fetch, clientFor(payer))(at('/v1/cert?domain=lapsed-cert.org'));
    expect(res.status).toBe(502);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await res.json()).toMatchObject({ code: 'upstream_failed' });
    expect(await balances(payer.address, chain.payTo)).toEqual([FUNDS, payTo0]);
  });

  it('site-health with the registry down: 200 partial, charged the full price', async () => {
    const payer = await newPayer();
    world.rdapRegistry.mode = 'server_error';
    const res = await wrapFetchWithPayment(
      fetch,
      clientFor(payer),
    )(at('/v1/site-health?domain=neglected-bistro.com'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { partial: boolean; expiry: unknown };
    expect(body.partial).toBe(true);
    expect(body.expiry).toEqual({
      error: { code: 'upstream_failed', message: expect.stringContaining('rdap') },
    });
    expect(await balances(payer.address)).toEqual([FUNDS - 30_000n]);
  });

  it('runs one signature once across two isolates: 10 copies → one 200, nine 409, one charge', async () => {
    const payer = await newPayer();
    const [payTo0 = 0n] = await balances(chain.payTo);
    const domain = 'dmarc-monitor.net';
    const path = `/v1/cert?domain=${domain}`;
    const payload = await clientFor(payer).createPaymentPayload(await challenge(path));
    const header = encodePaymentSignatureHeader(payload);
    const crtshBefore = crtshLookups(domain);
    world.crtsh.delayMs = 300;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, copy) =>
        fetch(at(path, copy % 2), { headers: { 'payment-signature': header } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    // Each isolate has its own caches: had both run the check, crt.sh would have been asked twice.
    expect(crtshLookups(domain) - crtshBefore).toBe(1);
    expect(await balances(payer.address, chain.payTo)).toEqual([FUNDS - 10_000n, payTo0 + 10_000n]);
  });

  it('settles 20 concurrent distinct payments from both isolates without a nonce collision', async () => {
    const payers = await Promise.all(Array.from({ length: 20 }, () => newPayer()));
    const [payTo0 = 0n] = await balances(chain.payTo);
    const path = `/v1/dns?domain=${DOMAIN}`;
    const terms = await challenge(path);
    const headers = await Promise.all(
      payers.map(async (payer) =>
        encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(terms)),
      ),
    );
    const responses = await Promise.all(
      headers.map((header, index) =>
        fetch(at(path, index % 2), { headers: { 'payment-signature': header } }),
      ),
    );
    const receipts = responses.map((r) =>
      decodePaymentResponseHeader(r.headers.get('payment-response') ?? ''),
    );
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(receipts.map((r) => r.transaction)).size).toBe(20);
    expect(await balances(...payers.map((p) => p.address))).toEqual(Array(20).fill(FUNDS - 10_000n));
    expect(await balances(chain.payTo)).toEqual([payTo0 + 20n * 10_000n]);
  });

  it('serves MCP: a paid tool call through the official client, charged once', async () => {
    const payer = await newPayer();
    const call = await payFor({
      transport: 'mcp',
      baseUrl: edge.urls[1] ?? edge.urls[0]!,
      route: '/v1/expiry',
      tool: 'check_domain_expiry',
      domain: DOMAIN,
      payer,
    });
    expect(call.answer).toMatchObject({ delivered: true });
    expect(await balances(payer.address)).toEqual([FUNDS - 10_000n]);
  });

  it('serves MCP 2026-07-28: the pinned 2.x client pays a tool once; server/discover and tools/list match Node', async () => {
    const payer = await newPayer();
    const call = await payFor({
      transport: 'mcp-2026',
      baseUrl: edge.urls[0]!,
      route: '/v1/dns',
      tool: 'check_dns',
      domain: DOMAIN,
      payer,
    });
    expect(call.answer).toMatchObject({ delivered: true });
    expect(await balances(payer.address)).toEqual([FUNDS - 10_000n]);

    // With watches, as the Worker: their tools are listed only where a runtime keeps them.
    const node = createService(loadConfig(edge.variables), {
      logger: pino({ level: 'silent' }),
      reach: nodeReach(world.site.caPem),
      watches: storeWatchRuntime(openSqliteWatchStore(':memory:')),
    });
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    for (const method of ['server/discover', 'tools/list']) {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
      };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope } });
      const [fromEdge, fromNode] = await Promise.all([
        fetch(at('/mcp'), { method: 'POST', headers, body }),
        node.app.request('/mcp', { method: 'POST', headers, body }),
      ]);
      expect(fromEdge.status, method).toBe(200);
      const answer = (await fromEdge.json()) as { result: { resultType: string; ttlMs: number } };
      expect(answer.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000 });
      expect(answer, method).toEqual(await fromNode.json());
    }
    const mismatch = await fetch(at('/mcp'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } }),
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error: { code: -32020 } });
  });

  it('lists the same MCP tools as Node, and refuses an invalid domain over MCP before any payment', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    // With watches, as the Worker: their tools are listed only where a runtime keeps them.
    const node = createService(loadConfig(edge.variables), {
      logger: pino({ level: 'silent' }),
      reach: nodeReach(world.site.caPem),
      watches: storeWatchRuntime(openSqliteWatchStore(':memory:')),
    });
    const [fromEdge, fromNode] = await Promise.all([
      fetch(at('/mcp'), { method: 'POST', headers, body: JSON.stringify(list) }),
      node.app.request('/mcp', { method: 'POST', headers, body: JSON.stringify(list) }),
    ]);
    expect(fromEdge.status).toBe(200);
    expect(await fromEdge.json()).toEqual(await fromNode.json());

    const invalid = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'check_dns', arguments: { domain: 'http://10.0.0.1/' } },
    };
    const refused = await fetch(at('/mcp'), { method: 'POST', headers, body: JSON.stringify(invalid) });
    const { result } = (await refused.json()) as { result: { isError: boolean; structuredContent: unknown } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'invalid_domain' });
    expect(result.structuredContent).not.toHaveProperty('accepts');
  });

  // Last: every isolate has built the app and served paid calls, upstream failures included.
  it('printed no error while starting and serving: no uncaught exception, no refused code generation', () => {
    const output = edge.output();
    expect(output).toContain('"msg":"payment settled"');
    expect(output).not.toMatch(/uncaught|code generation|EvalError|"level":50/i);
  });
});

describe('the Worker with a remote facilitator', () => {
  let facilitator: FakeFacilitator;
  let remote: EdgeService;
  beforeAll(async () => {
    facilitator = await startFakeFacilitator('eip155:8453');
    remote = await startEdgeService({
      world,
      chain,
      bundle,
      variables: { X402_FACILITATOR_URL: facilitator.url.href, X402_SETTLER_PRIVATE_KEY: '' },
    });
  }, 60_000);
  afterAll(async () => {
    await remote?.stop();
    await facilitator?.close();
  });

  it('verifies and settles through the facilitator: a paid 200 with its receipt, no settler object', async () => {
    const payer = await newPayer();
    const res = await wrapFetchWithPayment(
      fetch,
      clientFor(payer),
    )(new URL(`/v1/dns?domain=${DOMAIN}`, remote.urls[0]));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ domain: DOMAIN });
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') ?? '')).toMatchObject({
      success: true,
      transaction: FAKE_TX_HASH,
    });
    expect(facilitator.calls.map((call) => call.path).filter((path) => path !== '/supported')).toEqual([
      '/verify',
      '/settle',
    ]);
  });
});

describe('the Worker offline (edge:dev with no upstream reachable)', () => {
  let offline: EdgeService;
  beforeAll(async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    offline = await startEdgeService({
      world,
      chain,
      bundle,
      variables: { DOH_URL: `${nowhere}/dns-query`, DOH_FALLBACK_URL: `${nowhere}/dns-query` },
    });
  }, 60_000);
  afterAll(() => offline?.stop());

  it("names the failure network, as Node does, so the CLI's offline hint appears; nothing is charged", async () => {
    const payer = await newPayer();
    const res = await wrapFetchWithPayment(
      fetch,
      clientFor(payer),
    )(new URL(`/v1/dns?domain=${DOMAIN}`, offline.urls[0]));
    expect(res.status).toBe(502);
    const body = (await res.json()) as { code: string; upstreams: { name: string; error: string }[] };
    expect(body.code).toBe('upstream_failed');
    // The CLI prints "is this machine offline? … npm run world" for a local 502 naming `network`.
    expect(body.upstreams.length).toBeGreaterThan(0);
    expect(body.upstreams.every((upstream) => upstream.error === 'network')).toBe(true);
    expect(await balances(payer.address)).toEqual([FUNDS]);
  });
});

/** crt.sh identity searches the world has answered for `domain`. */
function crtshLookups(domain: string): number {
  return world.crtsh.requests.filter((r) => r.url.searchParams.get('Identity') === domain).length;
}
