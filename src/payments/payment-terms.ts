/**
 * What one paid operation asks for on one transport: the `accepts` entries, the resource they pay
 * for and the bazaar extension. Built once per operation (prices and payTo are static) after the
 * facilitator is ready, since the scheme adds its `extra` then.
 */
import type { HTTPRequestContext, x402ResourceServer } from '@x402/core/server';
import type { PaymentRequirements, ResourceInfo } from '@x402/core/types';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { DOMAIN_INPUT_JSON_SCHEMA, EXAMPLE_DOMAIN, type PaidOperation } from '../catalog.ts';
import type { Config } from '../config.ts';
import { outputExampleFor } from './output-examples.ts';
import { PAYMENT_IDENTIFIER_DECLARATION } from './payment-identifier.ts';
import { paymentRequirementsFor } from './resource-server.ts';

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
        resource: { url: route.resource ?? '', description: operation.summary, mimeType: 'application/json' },
        extensions: {
          ...resourceServer.enrichExtensions(route.extensions ?? {}, context),
          ...PAYMENT_IDENTIFIER_DECLARATION,
        },
      };
    }
    return {
      requirements,
      resource: {
        url: toolResourceUrl(operation.tool),
        description: operation.summary,
        mimeType: 'application/json',
      },
      extensions: {
        ...declareDiscoveryExtension({
          toolName: operation.tool,
          description: operation.description,
          transport: 'streamable-http',
          inputSchema: DOMAIN_INPUT_JSON_SCHEMA,
          example: { domain: EXAMPLE_DOMAIN },
          output: { example: outputExampleFor(operation.id) },
        }),
        ...PAYMENT_IDENTIFIER_DECLARATION,
      },
    };
  }
}
