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
import {
  listedResource,
  PAYMENT_IDENTIFIER_DECLARATION,
  toolResourceUrl,
} from '../payments/server/payment-terms.ts';
import { outputSummarySchema } from '../payments/server/output-schema.ts';
import { MAX_TIMEOUT_SECONDS } from '../payments/exact-authorization.ts';
import { USDC_EIP712_DOMAIN } from '../payments/server/resource-server.ts';
import { WATCH_CREATED_EXAMPLE, WATCH_EXTENDED_EXAMPLE } from './output-examples.ts';
import { watchCreatedSchema, watchInputShape, watchStatusSchema } from './schemas.ts';
import { watchPriceAtomic } from './pricing.ts';
import type { WatchRequest } from './request.ts';

export const WATCH_INPUT_JSON_SCHEMA = z.toJSONSchema(z.object(watchInputShape));

const create = watchOperations.find((operation) => operation.id === 'v1_watch_create') as WatchOperation;

/** What listing crawlers show of a watch's payments (x402 bazaar `resource.tags`: at most 5). */
const WATCH_LISTING = {
  summary: create.summary,
  tags: ['monitoring', 'webhooks', 'certificates', 'dns', 'domains'],
} as const;

/** The answer each payment buys, as its bazaar `output` says (the schema's top level; `/openapi.json` has it whole). */
const OUTPUTS = {
  purchase: { example: WATCH_CREATED_EXAMPLE, schema: outputSummarySchema(watchCreatedSchema) },
  extension: { example: WATCH_EXTENDED_EXAMPLE, schema: outputSummarySchema(watchStatusSchema) },
} as const;
type Bought = keyof typeof OUTPUTS;

export function watchTermsFor(
  resourceServer: x402ResourceServer,
  config: Config,
  transport: PaymentTransport,
): WatchTerms {
  const built = new Map<string, Promise<PaymentTerms>>();

  const termsOf = (days: number, bought: Bought) => {
    const key = `${bought} ${days}`;
    let terms = built.get(key);
    if (!terms) {
      terms = buildTerms(resourceServer, config, transport, days, bought);
      built.set(key, terms);
      terms.catch(() => built.delete(key));
    }
    return terms;
  };
  return {
    async purchase(request) {
      const terms = await termsOf(request.days, 'purchase');
      return {
        ...terms,
        resource: { ...terms.resource, url: boundResourceUrl(terms.resource.url, request) },
      };
    },
    async extension(watchId, days) {
      const terms = await termsOf(days, 'extension');
      const route =
        transport === 'http'
          ? `${config.publicBaseUrl}${extendPath(watchId)}`
          : toolResourceUrl('watch_extend');
      const query = new URLSearchParams(
        transport === 'http' ? { days: String(days) } : { watch_id: watchId, days: String(days) },
      );
      return {
        ...terms,
        resource: {
          ...terms.resource,
          url: `${route}?${query}`,
          description: `${days} more days of watching`,
        },
      };
    },
  };
}

/** The terms of a payment for `days` of watching on `transport`: a purchase's or an extension's. */
async function buildTerms(
  resourceServer: x402ResourceServer,
  config: Config,
  transport: PaymentTransport,
  days: number,
  bought: Bought,
): Promise<PaymentTerms> {
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
      output: OUTPUTS[bought],
    });
    return {
      requirements,
      resource: listedResource(config, WATCH_LISTING, `${config.publicBaseUrl}${WATCHES_ROUTE}`),
      extensions: {
        ...resourceServer.enrichExtensions(declared, context),
        ...PAYMENT_IDENTIFIER_DECLARATION,
      },
    };
  }
  return {
    requirements,
    resource: listedResource(config, WATCH_LISTING, toolResourceUrl(create.tool)),
    extensions: {
      ...declareDiscoveryExtension({
        toolName: create.tool,
        description: create.description,
        transport: 'streamable-http',
        inputSchema: WATCH_INPUT_JSON_SCHEMA,
        example,
        output: OUTPUTS[bought],
      }),
      ...PAYMENT_IDENTIFIER_DECLARATION,
    },
  };
}

/** The path extending watch `watchId`. */
export const extendPath = (watchId: string): string => `/v1/watches/${encodeURIComponent(watchId)}/extend`;

/** The terms of a watch's payments on one transport: a purchase, bound to its body; an extension, to its watch and days. */
export interface WatchTerms {
  purchase(request: WatchRequest): Promise<PaymentTerms>;
  extension(watchId: string, days: number): Promise<PaymentTerms>;
}

/**
 * The resource a watch's payment is for: the route (or tool) with the request's body in its query,
 * so that the payload a client signs echoes it, and a signature buys only the watch it was signed
 * for (`resourceProblem` compares a resource with a query exactly). A client copies `resource` from
 * the 402 into its payload as it is (x402 v2), so it needs to know nothing of this.
 */
export function boundResourceUrl(base: string, { domain, days, webhookUrl }: WatchRequest): string {
  const query = new URLSearchParams({ domain: domain.domain, days: String(days) });
  if (webhookUrl !== null) query.set('webhook_url', webhookUrl);
  return `${base}?${query}`;
}
