/**
 * An instance killed (`kill -9`) at a point of a paid call, and the payer's retry of the same
 * request with the same signature on another instance: the parts shared by the fleet's crash tests
 * of a check (`fleet-crash.test.ts`) and of buying a watch (`watch-crash.test.ts`). The three points:
 * during the check (crt.sh held), with the settlement signed but never sent (the RPC relay keeps
 * it), and after the settlement reached the chain (its answer held, the payer charged).
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, http, keccak256 } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { baseChainAt } from '../../src/payments/chain/base-chain.ts';
import { LEASE_MS } from '../../src/payments/server/lock-lease.ts';
import { clientFor } from '../world/payer-client.ts';
import type { SelfSettlingService, SettlementWorld } from '../world/self-settling-service.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * A retry is answered 409 (the dead holder's lock) until its lease ends (`LEASE_MS` at most), then
 * served: tenfold margin on the machine's load, still well below the 110 s a dead holder's lock used
 * to last.
 */
export const SERVED_WITHIN_MS = 10 * LEASE_MS;
const RETRY_EVERY_MS = 250;

/** One paid request as a payer sends it, to whichever instance. */
export interface PaidRequest {
  /** Sends it to `service`, paid with `signature` (unpaid without: the 402 names the price). */
  send(service: SelfSettlingService, signature?: string): Promise<Response>;
}

export interface PaidAnswer {
  status: number;
  body: Record<string, unknown> | null;
  /** The `PAYMENT-RESPONSE` header. */
  receipt: string | null;
}

/** `GET <route>?domain=<domain>`: a check. */
export function checkRequest(route: string, domain: string): PaidRequest {
  return {
    send: (service, signature) =>
      fetch(new URL(`${route}?domain=${domain}`, service.process.url), {
        headers: signature ? { 'payment-signature': signature } : {},
      }),
  };
}

/** `POST /v1/watches` with `body`: buying a watch. */
export function watchRequest(body: Record<string, unknown>): PaidRequest {
  return {
    send: (service, signature) =>
      fetch(new URL('/v1/watches', service.process.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(signature ? { 'payment-signature': signature } : {}),
        },
        body: JSON.stringify(body),
      }),
  };
}

/** Instances sharing one settler key and one environment (one Redis, or one watch file). */
export interface Fleet {
  settlement: SettlementWorld;
  settlerPrivateKey: `0x${string}`;
  env: Record<string, string>;
}

/** `payer`'s `PAYMENT-SIGNATURE` for the challenge `service` gives, with the x402 `payment-identifier` `id` when given. */
export async function signedPayment(
  service: SelfSettlingService,
  payer: PrivateKeyAccount,
  request: PaidRequest,
  id?: string,
) {
  const unpaid = await request.send(service);
  await unpaid.arrayBuffer();
  const challenge = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  if (id) appendPaymentIdentifierToExtensions((challenge.extensions ??= {}), id);
  return encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(challenge));
}

export async function answerOf(
  service: SelfSettlingService,
  signature: string,
  request: PaidRequest,
): Promise<PaidAnswer> {
  const res = await request.send(service, signature);
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  return { status: res.status, body, receipt: res.headers.get('payment-response') };
}

/** The payer's retry: the same request and signature, again while it is answered 409 or 503. */
export async function retryUntilServed(
  service: SelfSettlingService,
  signature: string,
  request: PaidRequest,
) {
  const started = performance.now();
  const refusals: string[] = [];
  for (;;) {
    const answer = await answerOf(service, signature, request);
    if ((answer.status !== 409 && answer.status !== 503) || performance.now() - started > SERVED_WITHIN_MS)
      return { ...answer, refusals, ms: performance.now() - started };
    refusals.push(`${answer.status} ${String(answer.body?.code)}`);
    await sleep(RETRY_EVERY_MS);
  }
}

/** What the payer was charged so far, of the `funds` it was given. */
export async function chargedOf(settlement: SettlementWorld, payer: PrivateKeyAccount, funds: bigint) {
  return funds - (await settlement.chain.balanceOf(payer.address));
}

/** Starts the instance to kill, with one paid call of `payer` on it; the call's answer never comes. */
export async function doomedCall(fleet: Fleet, payer: PrivateKeyAccount, request: PaidRequest) {
  const doomed = await fleet.settlement.startService({
    settlerPrivateKey: fleet.settlerPrivateKey,
    env: fleet.env,
  });
  const signature = await signedPayment(doomed, payer, request);
  void answerOf(doomed, signature, request).catch(() => {});
  return { doomed, signature };
}

export async function kill(doomed: SelfSettlingService) {
  doomed.process.signal('SIGKILL');
  expect(await doomed.process.exited).toBeNull();
  await doomed.close();
}

/** Killed once its settlement reached the chain (its answer held): the payer is charged `price`. */
export async function killAfterSend(
  fleet: Fleet,
  payer: PrivateKeyAccount,
  request: PaidRequest,
  price: bigint,
  funds: bigint,
) {
  const { doomed, signature } = await doomedCall(fleet, payer, request);
  doomed.proxy.rule('eth_sendRawTransaction', { holdResponse: 'until-released' });
  await doomed.proxy.until('eth_sendRawTransaction', (call) => call.forwarded, 30_000);
  await waitFor(async () => (await chargedOf(fleet.settlement, payer, funds)) === price, {
    what: 'the payer charged the price',
    everyMs: 50,
  });
  await kill(doomed);
  return { doomed, signature };
}

/** Killed with its settlement signed and never sent: the hash of that transaction, never to be mined. */
export async function killBeforeSend(fleet: Fleet, payer: PrivateKeyAccount, request: PaidRequest) {
  const { doomed, signature } = await doomedCall(fleet, payer, request);
  doomed.proxy.rule('eth_sendRawTransaction', { holdRequest: 'until-released', forward: false });
  const held = await doomed.proxy.until('eth_sendRawTransaction', () => true, 30_000);
  await kill(doomed);
  return { signature, abandoned: keccak256((held.params as [`0x${string}`])[0]) };
}

/**
 * Killed while its check waits on crt.sh: `request` must be about `domain`, one this fleet has not
 * checked (its CT answer is not shared yet, so the check asks crt.sh). Killed once crt.sh is asked
 * about `domain`: a search for another domain, by a case running beside, does not count.
 */
export async function killDuringCheck(
  fleet: Fleet,
  payer: PrivateKeyAccount,
  request: PaidRequest,
  domain: string,
) {
  const { crtsh } = fleet.settlement.world;
  crtsh.delayMs = 5_000;
  try {
    const earlier = new Set(crtsh.requests);
    const asked = crtsh.arrival(
      (searched) =>
        !earlier.has(searched) &&
        [...searched.url.searchParams.values()].some((value) => value.includes(domain)),
    );
    const { doomed, signature } = await doomedCall(fleet, payer, request);
    await asked;
    await kill(doomed);
    return { signature };
  } finally {
    crtsh.delayMs = 0;
  }
}

const chainOf = ({ settlement }: Fleet) =>
  createPublicClient({
    chain: baseChainAt(settlement.chain.rpcUrl),
    transport: http(settlement.chain.rpcUrl.href),
  });

/** The settler's transactions all mined: no nonce left waiting behind a gap. */
export async function expectNoNonceGap(fleet: Fleet) {
  const client = chainOf(fleet);
  const address = privateKeyToAccount(fleet.settlerPrivateKey).address;
  const [latest, pending] = await Promise.all([
    client.getTransactionCount({ address, blockTag: 'latest' }),
    client.getTransactionCount({ address, blockTag: 'pending' }),
  ]);
  expect(pending).toBe(latest);
}

/** Whether the chain has a receipt for `hash`. */
export async function mined(fleet: Fleet, hash: `0x${string}`): Promise<boolean> {
  return chainOf(fleet)
    .getTransactionReceipt({ hash })
    .then(
      () => true,
      (error: unknown) => {
        if (/could not be found/i.test(String(error))) return false;
        throw error;
      },
    );
}
