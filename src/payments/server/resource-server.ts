/**
 * The x402 v2 resource server and the per-operation payment requirements, derived from the catalog:
 * one `exact` EVM option per paid operation, with the x402 v2 bazaar discovery extension.
 */
import { type FacilitatorClient, type RouteConfig, x402ResourceServer } from '@x402/core/server';
import type { Network } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { paymentIdentifierResourceServerExtension } from '@x402/extensions/payment-identifier';
import { DOMAIN_INPUT_JSON_SCHEMA, EXAMPLE_DOMAIN, type PaidOperation, usdToAtomic } from '../../catalog.ts';
import type { Config } from '../../config.ts';
import { MAX_TIMEOUT_SECONDS } from '../exact-authorization.ts';
import { outputExampleFor } from './output-examples.ts';
import { outputSummarySchema } from './output-schema.ts';

/** EIP-712 domain of USDC on Base mainnet; the test token on the local chain uses the same one (x402 `exact` scheme on EVM). */
export const USDC_EIP712_DOMAIN = { name: 'USD Coin', version: '2' } as const;

/**
 * An `x402ResourceServer` that verifies and settles through `facilitator`, with the exact EVM server
 * scheme registered for `network` only and the bazaar and payment-identifier extensions registered up front. Not initialized:
 * the payment gate fetches the facilitator's supported kinds once, on first use.
 */
export function createResourceServer(facilitator: FacilitatorClient, network: Network): x402ResourceServer {
  return new x402ResourceServer(facilitator)
    .register(network, new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension)
    .registerExtension(paymentIdentifierResourceServerExtension);
}

/**
 * The x402 route configuration of one paid operation: one `accepts` entry priced in USDC atomic units
 * (`"0.01"` → `"10000"`), `resource` = the absolute public URL of the route, and its bazaar extension.
 * Throws when no recipient is configured (local-chain mode must fill `config.x402.payTo` first).
 */
export function paymentRequirementsFor(operation: PaidOperation, config: Config): RouteConfig {
  const { network, asset, payTo } = config.x402;
  if (!payTo) {
    throw new Error(
      `No payment recipient for ${operation.route}: set X402_PAY_TO, or take it from the local chain before building the payment gate.`,
    );
  }
  return {
    accepts: {
      scheme: 'exact',
      network,
      payTo,
      price: { amount: usdToAtomic(operation.priceUsd), asset, extra: { ...USDC_EIP712_DOMAIN } },
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    },
    resource: `${config.publicBaseUrl}${operation.route}`,
    description: operation.summary,
    mimeType: 'application/json',
    extensions: declareDiscoveryExtension({
      input: { domain: EXAMPLE_DOMAIN },
      inputSchema: DOMAIN_INPUT_JSON_SCHEMA,
      output: { example: outputExampleFor(operation.id), schema: outputSummarySchema(operation.output) },
    }),
  };
}
