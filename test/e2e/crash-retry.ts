/**
 * What the `kill -9` suites share: a payer's signed payment for the cert route, a paid call whose
 * answer never comes on the instance about to be killed, the kill itself, and the payer's retry of
 * the same request with the same signature while it is answered 409 or 503.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { LEASE_MS } from '../../src/payments/lock-lease.ts';
import { x402ClientFor } from '../world/paying-clients.ts';
import type { SelfSettlingService, SettlementWorld } from '../world/self-settling-service.ts';
import { FUNDS, OPERATION } from './charged-iff-delivered.ts';

/**
 * A retry is answered 409 (the dead holder's lock) or 503 (its wallet lease) until both leases end
 * (`LEASE_MS` each at most), then served: tenfold margin on the machine's load, still well below the
 * 110 s a dead holder's lock used to last.
 */
const SERVED_WITHIN_MS = 10 * LEASE_MS;
const RETRY_EVERY_MS = 250;

export interface PaidGetAnswer {
  status: number;
  body: { domain?: string; code?: string } | null;
  receipt: string | null;
}

export interface CrashRetry {
  /** What the payer has paid so far, in atomic USDC. */
  charged(payer: PrivateKeyAccount): Promise<bigint>;
  /**
   * The `PAYMENT-SIGNATURE` for `domain`, signed by `payer` for the challenge `service` gave, with
   * the x402 `payment-identifier` `id` when given.
   */
  signedPayment(
    service: SelfSettlingService,
    payer: PrivateKeyAccount,
    domain: string,
    id?: string,
  ): Promise<string>;
  paidGet(service: SelfSettlingService, signature: string, domain?: string): Promise<PaidGetAnswer>;
  /** The payer's retry: the same request and signature, again while it is answered 409 or 503. */
  retryUntilServed(
    service: SelfSettlingService,
    signature: string,
    domain: string,
  ): Promise<PaidGetAnswer & { refusals: string[]; ms: number }>;
  /** Starts the instance to kill, with one paid call of `payer` on it; the call's answer never comes. */
  doomedCall(
    payer: PrivateKeyAccount,
    domain: string,
  ): Promise<{ doomed: SelfSettlingService; signature: string }>;
  /** Holds the doomed call's settlement transaction once the node has it, and waits until it is mined. */
  settledOnChain(doomed: SelfSettlingService, payer: PrivateKeyAccount, price: bigint): Promise<void>;
  /** SIGKILL, as a host lost; resolves once it is gone. */
  kill(doomed: SelfSettlingService): Promise<void>;
}

/** `start` starts an instance the way the suite runs them (its key, its environment). */
export function crashRetry(
  settlement: SettlementWorld,
  start: () => Promise<SelfSettlingService>,
): CrashRetry {
  const urlOf = (service: SelfSettlingService, domain: string) =>
    new URL(`${OPERATION.route}?domain=${domain}`, service.process.url);

  const harness: CrashRetry = {
    charged: async (payer) => FUNDS - (await settlement.chain.balanceOf(payer.address)),

    async signedPayment(service, payer, domain, id) {
      const unpaid = await fetch(urlOf(service, domain));
      await unpaid.arrayBuffer();
      const challenge = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
      if (id) appendPaymentIdentifierToExtensions((challenge.extensions ??= {}), id);
      return encodePaymentSignatureHeader(await x402ClientFor(payer).createPaymentPayload(challenge));
    },

    async paidGet(service, signature, domain = OPERATION.domain) {
      const res = await fetch(urlOf(service, domain), { headers: { 'payment-signature': signature } });
      const body = (await res.json().catch(() => null)) as PaidGetAnswer['body'];
      return { status: res.status, body, receipt: res.headers.get('payment-response') };
    },

    async retryUntilServed(service, signature, domain) {
      const started = performance.now();
      const refusals: string[] = [];
      for (;;) {
        const answer = await harness.paidGet(service, signature, domain);
        if (
          (answer.status !== 409 && answer.status !== 503) ||
          performance.now() - started > SERVED_WITHIN_MS
        )
          return { ...answer, refusals, ms: performance.now() - started };
        refusals.push(`${answer.status} ${answer.body?.code}`);
        await sleep(RETRY_EVERY_MS);
      }
    },

    async doomedCall(payer, domain) {
      const doomed = await start();
      const signature = await harness.signedPayment(doomed, payer, domain);
      void harness.paidGet(doomed, signature, domain).catch(() => {});
      return { doomed, signature };
    },

    async settledOnChain(doomed, payer, price) {
      doomed.proxy.rule('eth_sendRawTransaction', { holdResponse: 'until-released' });
      await doomed.proxy.until('eth_sendRawTransaction', (call) => call.forwarded, 30_000);
      while ((await harness.charged(payer)) !== price) await sleep(50);
    },

    async kill(doomed) {
      doomed.process.signal('SIGKILL');
      expect(await doomed.process.exited).toBeNull();
      await doomed.close();
    },
  };
  return harness;
}
