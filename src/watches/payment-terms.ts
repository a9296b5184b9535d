/**
 * The x402 terms of buying a watch: one `exact` option priced pro rata of its `days`, for the
 * route (HTTP) or the tool (MCP), with a bazaar extension declaring the JSON body. Built once per
 * number of days and transport, after the facilitator is ready (the scheme adds its `extra` then).
 */
import type { HTTPRequestContext, x402ResourceServer } from '@x402/core/server';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { z } from 'zod';
import { EXAMPLE_DOMAIN, WATCHES_ROUTE, type WatchOperation, watchOperations } from '../catalog.ts';
import type { Config } from '../config.ts';
import type { PaymentTerms, PaymentTransport } from '../payments/server/payment-terms.ts';
import { toolResourceUrl } from '../payments/server/payment-terms.ts';
import { MAX_TIMEOUT_SECONDS } from '../payments/exact-authorization.ts';
import { USDC_EIP712_DOMAIN } from '../payments/server/resource-server.ts';
import { watchInputShape } from './schemas.ts';
import { watchPriceAtomic } from './pricing.ts';

export const WATCH_INPUT_JSON_SCHEMA = z.toJSONSchema(z.object(watchInputShape));

const create = watchOperations.find((operation) => operation.id === 'v1_watch_create') as WatchOperation;

export function watchTermsFor(
  resourceServer: x402ResourceServer,
  config: Config,
  transport: PaymentTransport,
): (days: number) => Promise<PaymentTerms> {
  const built = new Map<number, Promise<PaymentTerms>>();

  async function build(days: number): Promise<PaymentTerms> {
    const { network, asset, payTo } = config.x402;
    if (!payTo) throw new Error('No payment recipient for watches: set X402_PAY_TO.');
    const amount = watchPriceAtomic(config.watches.pricePer30DaysUsd, days);
    const requirements = await resourceServer.buildPaymentRequirementsFromOptions(
      [
        {
          scheme: 'exact',
          network,
          payTo,
          price: { amount, asset, extra: { ...USDC_EIP712_DOMAIN } },
          maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
        },
      ],
      {} as HTTPRequestContext,
    );
    const example = { domain: EXAMPLE_DOMAIN, days };
    if (transport === 'http') {
      const context = { method: 'POST', adapter: {}, path: WATCHES_ROUTE } as HTTPRequestContext;
      const declared = declareDiscoveryExtension({
        bodyType: 'json',
        input: example,
        inputSchema: WATCH_INPUT_JSON_SCHEMA,
      });
      return {
        requirements,
        resource: {
          url: `${config.publicBaseUrl}${WATCHES_ROUTE}`,
          description: create.summary,
          mimeType: 'application/json',
        },
        extensions: resourceServer.enrichExtensions(declared, context),
      };
    }
    return {
      requirements,
      resource: {
        url: toolResourceUrl(create.tool),
        description: create.summary,
        mimeType: 'application/json',
      },
      extensions: declareDiscoveryExtension({
        toolName: create.tool,
        description: create.description,
        transport: 'streamable-http',
        inputSchema: WATCH_INPUT_JSON_SCHEMA,
        example,
      }),
    };
  }

  return (days) => {
    let terms = built.get(days);
    if (!terms) {
      terms = build(days);
      built.set(days, terms);
      terms.catch(() => built.delete(days));
    }
    return terms;
  };
}
