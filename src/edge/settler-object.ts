/**
 * Self-settlement on Workers: one Durable Object per settler wallet signs, journals and sends every
 * settlement transaction of that wallet, so the account nonce has one owner however many isolates
 * take payments. It runs the same settlement state machine as Node (`payments/facilitator/settlement.ts`),
 * reconciliation included; isolates verify payments themselves and only settle through it.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import type { Config } from '../config.ts';
import type { ChainView } from '../payments/chain/chain-view.ts';
import { createFacilitator } from '../payments/facilitator/facilitator.ts';
import { createResourceServer } from '../payments/server/resource-server.ts';
import {
  createSettlement,
  type Settle,
  type SettlementDeps,
  type SettlementOutcome,
} from '../payments/facilitator/settlement.ts';
import { edgeConfig, type EdgeVariables } from './edge-config.ts';

export class SettlerObject extends DurableObject<EdgeVariables> {
  #settle: Promise<Settle> | undefined;

  async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    extensions?: Record<string, unknown>,
  ): Promise<SettlementOutcome> {
    this.#settle ??= localSettle(edgeConfig(this.env)).catch((error: unknown) => {
      this.#settle = undefined;
      throw error;
    });
    const settle = await this.#settle.catch(() => undefined);
    if (!settle) return { status: 'unavailable' };
    return settle(payload, requirements, extensions);
  }
}

/** Settlement in this object: the in-process facilitator of `X402_RPC_URL` and the settler key. */
async function localSettle(config: Config): Promise<Settle> {
  const facilitator = createFacilitator(config);
  const resourceServer = createResourceServer(facilitator.client, config.x402.network);
  await resourceServer.initialize();
  return createSettlement({ resourceServer, network: config.x402.network, ...facilitator });
}

/**
 * Settles through the wallet's `SettlerObject`. Should the object itself fail mid-call (it was
 * reset, or could not be reached), nothing about the payment is known here: as with a remote
 * facilitator that did not answer, the chain is asked about the authorization until it is used or
 * provably unusable (`chain`, the isolate's own read access).
 */
export function settleThrough(
  namespace: DurableObjectNamespace<SettlerObject>,
  wallet: string,
  fallback: { network: Config['x402']['network']; chain: ChainView | undefined },
): Settle {
  const settler = () => namespace.get(namespace.idFromName(wallet.toLowerCase()));
  const fromChain = createSettlement({
    resourceServer: unreachableSettler,
    network: fallback.network,
    chain: fallback.chain,
  });
  return async (payload, requirements, extensions) => {
    try {
      return await settler().settle(payload, requirements, extensions);
    } catch {
      return fromChain(payload, requirements, extensions);
    }
  };
}

/** A resource server whose settlement never answers: what is left is to read the chain. */
const unreachableSettler: SettlementDeps['resourceServer'] = {
  settlePayment: () => Promise.reject(new Error('the settler object did not answer')),
};
