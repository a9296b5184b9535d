/**
 * The paid window timed from outside, the way a payer waits: the service as `npm start` runs it,
 * settling on the local chain itself, behind a JSON-RPC proxy that times every call. A paid call's
 * window is the longest stretch without a JSON-RPC call in flight between the paid request's
 * sending and the settlement transaction's send: the check (crt.sh slowed to 300 ms, its slowest
 * upstream) and whatever the service does around it (payment records, locks, the result's
 * assembly). Beside each call, crt.sh fetched directly by a bare client, as in the outside section.
 * Each round starts a fresh process, and no domain is asked twice in one (the checks' caches would
 * answer it).
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadConfig } from '../src/config.ts';
import { crtshSearchUrl } from '../src/sources/ct/crtsh.ts';
import { clientFor } from '../test/world/payer-client.ts';
import type { RpcCall } from '../test/world/rpc-fault-proxy.ts';
import { type SelfSettlingService, startSettlementWorld } from '../test/world/self-settling-service.ts';
import { median } from './http.ts';
import { CRTSH_DELAY_MS, plainDomains, serveService, timedGet } from './outside.ts';

export const PAID_ROUTES = ['/v1/cert', '/v1/site-health'] as const;

export interface PaidWindowRow {
  route: (typeof PAID_ROUTES)[number];
  calls: number;
  /** p50 of the window, of crt.sh fetched directly, of the two paired, and of the whole paid call. */
  window_p50_ms: number;
  bare_crtsh_p50_ms: number;
  over_p50_ms: number;
  call_p50_ms: number;
}

/** The longest stretch of [from, to] in which none of `calls` was in flight. */
export function longestQuiet(calls: readonly RpcCall[], from: number, to: number): number {
  const busy = calls
    .map((call) => [Math.max(call.receivedAt, from), Math.min(call.doneAt ?? to, to)] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let longest = 0;
  let quietSince = from;
  for (const [start, end] of busy) {
    longest = Math.max(longest, start - quietSince);
    quietSince = Math.max(quietSince, end);
  }
  return Math.max(longest, to - quietSince);
}

/** One paid call as the official client makes it; the window and the whole call, in ms. */
async function paidCall(
  service: SelfSettlingService,
  route: string,
  domain: string,
  payer: PrivateKeyAccount,
) {
  const url = `${service.process.url}${route}?domain=${domain}`;
  const unpaid = await fetch(url);
  await unpaid.arrayBuffer();
  const required = decodePaymentRequiredHeader(
    unpaid.headers.get('payment-required') ?? '',
  ) as PaymentRequired;
  const header = encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(required));
  const before = service.proxy.calls().length;
  const sent = performance.now();
  const paid = await fetch(url, { headers: { 'payment-signature': header } });
  await paid.arrayBuffer();
  const answered = performance.now();
  if (paid.status !== 200) throw new Error(`paid ${route} of ${domain} answered ${paid.status}`);
  const calls = service.proxy.calls().slice(before);
  const send = calls.find((call) => call.method === 'eth_sendRawTransaction');
  if (!send) throw new Error(`paid ${route} of ${domain}: no settlement transaction was sent`);
  return { window: longestQuiet(calls, sent, send.receivedAt), call: answered - sent };
}

export async function benchPaidWindow({ rounds = 2 } = {}): Promise<PaidWindowRow[]> {
  const settlement = await startSettlementWorld();
  const { world } = settlement;
  try {
    const selector = await serveService(loadConfig({ ...world.env, LOG_LEVEL: 'silent' }), world.site.caPem);
    const plain = await plainDomains(world, selector).finally(() => selector.close());
    const [warm, ...measured] = plain;
    if (!warm || measured.length < PAID_ROUTES.length)
      throw new Error(`too few plain domains: ${plain.join(', ')}`);
    world.crtsh.delayMs = CRTSH_DELAY_MS;
    const payer = await settlement.newPayer(1_000_000_000n);
    const samples = PAID_ROUTES.map(() => ({
      window: [] as number[],
      bare: [] as number[],
      over: [] as number[],
      call: [] as number[],
    }));
    for (let round = 0; round < rounds; round += 1) {
      const service = await settlement.startService();
      try {
        // Unmeasured: the first paid call of a process compiles its code.
        for (const route of PAID_ROUTES) await paidCall(service, route, warm, payer);
        for (const [index, domain] of measured.entries()) {
          const at = (index + round) % PAID_ROUTES.length;
          const direct = await timedGet(crtshSearchUrl(world.crtsh.url, domain));
          const timed = await paidCall(service, PAID_ROUTES[at] as string, domain, payer);
          const into = samples[at] as (typeof samples)[number];
          into.window.push(timed.window);
          into.bare.push(direct.ms);
          into.over.push(timed.window - direct.ms);
          into.call.push(timed.call);
        }
      } finally {
        await service.close();
      }
    }
    const round1 = (value: number) => Math.round(value * 10) / 10;
    return PAID_ROUTES.map((route, at) => {
      const { window, bare, over, call } = samples[at] as (typeof samples)[number];
      return {
        route,
        calls: window.length,
        window_p50_ms: round1(median(window)),
        bare_crtsh_p50_ms: round1(median(bare)),
        over_p50_ms: round1(median(over)),
        call_p50_ms: round1(median(call)),
      };
    });
  } finally {
    await settlement.close();
  }
}
