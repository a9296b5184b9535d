/**
 * What one paid operation asks for on one transport: the `accepts` entries, the resource they pay
 * for and the bazaar extension. Built once per operation (prices and payTo are static) after the
 * facilitator is ready, since the scheme adds its `extra` then.
 */
import type { HTTPRequestContext, x402ResourceServer } from '@x402/core/server';
import type { PaymentRequirements, ResourceInfo } from '@x402/core/types';
import { declareDiscoveryExtension, isValidIconUrl } from '@x402/extensions/bazaar';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { DOMAIN_INPUT_JSON_SCHEMA, EXAMPLE_DOMAIN, type PaidOperation } from '../../catalog.ts';
import type { Config } from '../../config.ts';
import { absoluteUrl, SERVICE_TITLE } from '../../vocabulary/document-paths.ts';
import { FAVICON } from '../../vocabulary/page-assets.ts';
import { outputExampleFor } from './output-examples.ts';
import { outputSummarySchema } from './output-schema.ts';
import { paymentRequirementsFor } from './resource-server.ts';

/**
 * The x402 `payment-identifier` declaration every challenge carries: identifiers are welcome, not
 * required (`payment-identifier.ts` reads them).
 */
export const PAYMENT_IDENTIFIER_DECLARATION = {
  [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
} as const;

export interface PaymentTerms {
  requirements: PaymentRequirements[];
  resource: ResourceInfo;
  extensions: Record<string, unknown>;
}

export type PaymentTransport = 'http' | 'mcp';

/** The x402 `resource.url` naming a tool: `mcp://tool/<name>` (the reference wrapper's default). */
export function toolResourceUrl(tool: string): string {
  return `mcp://tool/${tool}`;
}

/**
 * The `resource` of a challenge for `url`, with the optional service metadata listing crawlers show
 * (x402 bazaar "Service Metadata on `resource`"): the service name, the operation's tags, and the
 * icon when its URL is one a catalogue accepts (never an IP literal or loopback host).
 */
function listedResource(config: Config, operation: PaidOperation, url: string): ResourceInfo {
  const iconUrl = absoluteUrl(config.publicBaseUrl, FAVICON.paths[0] ?? '/favicon.svg');
  return {
    url,
    description: operation.summary,
    mimeType: 'application/json',
    serviceName: SERVICE_TITLE,
    tags: [...operation.tags],
    ...(isValidIconUrl(iconUrl) ? { iconUrl } : {}),
  };
}

/** Builds (once each) the terms of every operation on one transport. */
export function paymentTermsFor(
  resourceServer: x402ResourceServer,
  config: Config,
  transport: PaymentTransport,
): (operation: PaidOperation) => Promise<PaymentTerms> {
  const built = new Map<PaidOperation['id'], Promise<PaymentTerms>>();
  return (operation) => {
    let terms = built.get(operation.id);
    if (!terms) {
      terms = build(operation);
      built.set(operation.id, terms);
      terms.catch(() => built.delete(operation.id));
    }
    return terms;
  };

  async function build(operation: PaidOperation): Promise<PaymentTerms> {
    const route = paymentRequirementsFor(operation, config);
    const options = Array.isArray(route.accepts) ? route.accepts : [route.accepts];
    // Price and payTo are static in the catalog, so the request context is never read.
    const requirements = await resourceServer.buildPaymentRequirementsFromOptions(
      options,
      {} as HTTPRequestContext,
    );
    if (transport === 'http') {
      // The bazaar extension adds the HTTP method to the declared input, as the SDK's middleware does.
      const context = { method: operation.method, adapter: {}, path: operation.route } as HTTPRequestContext;
      return {
        requirements,
        resource: listedResource(config, operation, route.resource ?? ''),
        extensions: {
          ...resourceServer.enrichExtensions(route.extensions ?? {}, context),
          ...PAYMENT_IDENTIFIER_DECLARATION,
        },
      };
    }
    return {
      requirements,
      resource: listedResource(config, operation, toolResourceUrl(operation.tool)),
      extensions: {
        ...declareDiscoveryExtension({
          toolName: operation.tool,
          // The one-line summary: catalogues take descriptions of at most 500 characters.
          description: operation.summary,
          transport: 'streamable-http',
          inputSchema: DOMAIN_INPUT_JSON_SCHEMA,
          example: { domain: EXAMPLE_DOMAIN },
          output: { example: outputExampleFor(operation.id), schema: outputSummarySchema(operation.output) },
        }),
        ...PAYMENT_IDENTIFIER_DECLARATION,
      },
    };
  }
}
