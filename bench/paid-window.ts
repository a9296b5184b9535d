/**
 * The paid window timed from outside, the way a payer waits: the service as `npm start` runs it,
 * settling on the local chain itself, behind a JSON-RPC proxy that times every call. A paid call's
 * window is the longest stretch without a JSON-RPC call in flight between the paid request's
 * sending and the settlement transaction's send: the check (crt.sh slowed to 300 ms, its slowest
 * upstream) and whatever the service does around it (payment records, locks, the result's
 * assembly). Beside each call, crt.sh fetched directly by two bare clients: one in a process of
 * its own, whose request and answer cross between processes as the service's do (the target is
 * judged against it), and one in the bench's process beside the fakes, as in the outside section.
 * Each round starts a fresh process, no domain is asked twice in one (the checks' caches would
 * answer it), and each measured call has a payer of its own, whose code the service has not read.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadConfig } from '../src/config.ts';
import { crtshSearchUrl } from '../src/sources/ct/crtsh.ts';
import { coveringWildcard } from '../src/sources/ct/issuance.ts';
import { clientFor } from '../test/world/payer-client.ts';
import type { LoopbackServer } from '../test/world/loopback-server.ts';
import type { RpcCall } from '../test/world/rpc-fault-proxy.ts';
import { type SelfSettlingService, startSettlementWorld } from '../test/world/self-settling-service.ts';
import { p50Ms } from './http.ts';
import { CRTSH_DELAY_MS, plainDomains, serveService, timedGet } from './outside.ts';

export const PAID_ROUTES = ['/v1/cert', '/v1/site-health'] as const;

export interface PaidWindowRow {
  route: (typeof PAID_ROUTES)[number];
  calls: number;
  /**
   * p50 of the window, of crt.sh fetched directly by a client in a process of its own and by one in
   * the bench's process (beside the fakes: no crossing between processes), of the window paired with
   * each, and of the whole paid call.
   */
  window_p50_ms: number;
  own_crtsh_p50_ms: number;
  over_own_p50_ms: number;
  /**
   * The same over crt.sh direct (own process) with the settlement's preparation (`eth_fillTransaction`)
   * left out: a Node instance prepares while the check runs, and that call, in flight in the middle
   * of crt.sh's wait, splits the stretch the window measures; without it the window is the service's
   * own stretch around the check again.
   */
  over_own_unprepared_p50_ms: number;
  bare_crtsh_p50_ms: number;
  over_p50_ms: number;
  call_p50_ms: number;
  /** p50 from the paid request's sending to crt.sh's request: the payment's verification, as the payer waits for it. */
  to_check_p50_ms: number;
  /** p50 from crt.sh's answer to the settlement transaction's send: the settlement, as the payer waits for it. */
  to_send_p50_ms: number;
  /** p50 from the last RPC before the check to crt.sh's request, and from crt.sh's answer to the next RPC. */
  before_check_p50_ms: number;
  after_check_p50_ms: number;
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

/** One paid call as the official client makes it; the window, the whole call and where the window's extra goes, in ms. */
async function paidCall(
  { service, crtsh }: { service: SelfSettlingService; crtsh: LoopbackServer },
  route: string,
  domain: string,
  payer: PrivateKeyAccount,
) {
  const url = new URL(`${route}?domain=${domain}`, service.process.url);
  const unpaid = await fetch(url);
  const challenge = await unpaid.text();
  if (unpaid.status !== 402)
    throw new Error(`unpaid ${route} of ${domain} answered ${unpaid.status}: ${challenge}`);
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
  // The check's crt.sh searches (the name and its covering wildcard, if any), asked together.
  const searches = crtsh.requests.filter(
    (request) =>
      request.receivedAt > sent &&
      [domain, coveringWildcard(domain)].includes(request.url.searchParams.get('Identity') ?? null),
  );
  const window = longestQuiet(calls, sent, send.receivedAt);
  const unprepared = longestQuiet(
    calls.filter((call) => call.method !== 'eth_fillTransaction'),
    sent,
    send.receivedAt,
  );
  // A call answered from the caches (a warm-up's second route) asked crt.sh nothing.
  if (searches.length === 0 || searches.some((request) => request.answeredAt === undefined))
    return {
      window,
      unprepared,
      call: answered - sent,
      toCheck: Number.NaN,
      toSend: Number.NaN,
      beforeCheck: Number.NaN,
      afterCheck: Number.NaN,
    };
  const searchAsked = Math.min(...searches.map((request) => request.receivedAt));
  const searchAnswered = Math.max(...searches.map((request) => request.answeredAt ?? 0));
  // From the last RPC done before crt.sh was asked, and from crt.sh's answer to the next RPC.
  const lastBefore = Math.max(
    sent,
    ...calls.filter((call) => (call.doneAt ?? 0) <= searchAsked).map((call) => call.doneAt ?? 0),
  );
  const firstAfter = Math.min(
    ...calls.filter((call) => call.receivedAt >= searchAnswered).map((call) => call.receivedAt),
  );
  return {
    window,
    unprepared,
    call: answered - sent,
    toCheck: searchAsked - sent,
    toSend: send.receivedAt - searchAnswered,
    beforeCheck: searchAsked - lastBefore,
    afterCheck: firstAfter - searchAnswered,
  };
}

/** A bare client in a process of its own (bare-client-process.ts): `get` times one fetch there. */
function startBareClient(): { get(url: URL): Promise<number>; close(): void } {
  const child: ChildProcess = fork(new URL('./bare-client-process.ts', import.meta.url), {
    stdio: 'inherit',
  });
  return {
    get: (url) =>
      new Promise((resolve, reject) => {
        child.once('message', (answer: { ms?: number; status?: number; error?: string }) => {
          if (answer.ms !== undefined && answer.status === 200) resolve(answer.ms);
          else reject(new Error(`bare client: ${answer.error ?? `status ${answer.status}`}`));
        });
        child.send(url.href);
      }),
    close: () => child.disconnect(),
  };
}

/**
 * `rpcMs`: every JSON-RPC call held that long at the proxy before the node gets it, as the round
 * trip to a remote RPC provider adds (the local chain answers in about a millisecond).
 */
export async function benchPaidWindow({ rounds = 2, rpcMs = 0 } = {}): Promise<PaidWindowRow[]> {
  const settlement = await startSettlementWorld();
  const { world } = settlement;
  const bareClient = startBareClient();
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
      own: [] as number[],
      overOwn: [] as number[],
      overOwnUnprepared: [] as number[],
      bare: [] as number[],
      over: [] as number[],
      call: [] as number[],
      toCheck: [] as number[],
      toSend: [] as number[],
      before: [] as number[],
      after: [] as number[],
    }));
    for (let round = 0; round < rounds; round += 1) {
      const service = await settlement.startService();
      if (rpcMs > 0) service.proxy.rule('*', { holdRequest: rpcMs });
      try {
        // Unmeasured: the first paid call of a process compiles its code.
        const at = { service, crtsh: world.crtsh };
        for (const route of PAID_ROUTES) await paidCall(at, route, warm, payer);
        for (const [index, domain] of measured.entries()) {
          const which = (index + round) % PAID_ROUTES.length;
          const direct = await timedGet(crtshSearchUrl(world.crtsh.url, domain));
          const own = await bareClient.get(crtshSearchUrl(world.crtsh.url, domain));
          const timed = await paidCall(
            at,
            PAID_ROUTES[which] as string,
            domain,
            await settlement.newPayer(1_000_000n),
          );
          if (Number.isNaN(timed.beforeCheck))
            throw new Error(`paid call of ${domain}: crt.sh was not asked`);
          const into = samples[which] as (typeof samples)[number];
          into.window.push(timed.window);
          into.own.push(own);
          into.overOwn.push(timed.window - own);
          into.overOwnUnprepared.push(timed.unprepared - own);
          into.bare.push(direct.ms);
          into.over.push(timed.window - direct.ms);
          into.call.push(timed.call);
          into.toCheck.push(timed.toCheck);
          into.toSend.push(timed.toSend);
          into.before.push(timed.beforeCheck);
          into.after.push(timed.afterCheck);
        }
      } finally {
        await service.close();
      }
    }
    return PAID_ROUTES.map((route, at) => {
      const { window, own, overOwn, overOwnUnprepared, bare, over, call, toCheck, toSend, before, after } =
        samples[at] as (typeof samples)[number];
      return {
        route,
        calls: window.length,
        window_p50_ms: p50Ms(window),
        own_crtsh_p50_ms: p50Ms(own),
        over_own_p50_ms: p50Ms(overOwn),
        over_own_unprepared_p50_ms: p50Ms(overOwnUnprepared),
        bare_crtsh_p50_ms: p50Ms(bare),
        over_p50_ms: p50Ms(over),
        call_p50_ms: p50Ms(call),
        to_check_p50_ms: p50Ms(toCheck),
        to_send_p50_ms: p50Ms(toSend),
        before_check_p50_ms: p50Ms(before),
        after_check_p50_ms: p50Ms(after),
      };
    });
  } finally {
    bareClient.close();
    await settlement.close();
  }
}
