/**
 * `/.well-known/x402`: the legacy x402scan manifest, a pointer kept for older
 * crawlers. The authoritative discovery data is `/openapi.json` plus the runtime 402.
 */
import { EXAMPLE_DOMAIN, paidOperations, WATCHES_ROUTE } from '../../catalog.ts';
import { WATCH_PRICE_NOTE } from '../../watches/pricing.ts';
import { absoluteUrl, DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';

export interface X402Manifest {
  version: 1;
  /**
   * Absolute URLs of the paid routes with an example domain (x402scan validates them as URLs): a
   * crawler's paymentless GET of each gets the route's 402, where the bare route is a 400.
   */
  resources: string[];
  instructions: string;
}

/** The manifest for a service published at `publicBaseUrl`. */
export function buildX402Manifest(publicBaseUrl: string): X402Manifest {
  const url = (path: `/${string}`) => absoluteUrl(publicBaseUrl, path);
  return {
    version: 1,
    resources: paidOperations.map((operation) => `${url(operation.route)}?domain=${EXAMPLE_DOMAIN}`),
    instructions: `Every resource is GET with a required domain query parameter (e.g. ?domain=example.com). An unpaid call returns HTTP 402 with a PAYMENT-REQUIRED header (x402 v2); retry with PAYMENT-SIGNATURE. Watches are bought the same way with POST ${url(WATCHES_ROUTE)} and a JSON body ({"domain":"${EXAMPLE_DOMAIN}","days":30}; ${WATCH_PRICE_NOTE}), not listed as a resource since a GET cannot buy one. Prices and schemas: ${url(DOCUMENT_PATHS.openapi)}; guide: ${url(DOCUMENT_PATHS.llmsTxt)}.`,
  };
}
