/**
 * `/llms.txt` (llmstxt.org): one H1, a blockquote summary, details as paragraphs and lists (how to
 * pay, each operation with a curl example, the MCP tools, the 64-day note), then H2 link lists.
 */
import { EXAMPLE_DOMAIN, freeOperations, paidOperations, watchOperations } from '../../catalog.ts';
import { LIFETIME_FACTS } from '../../checks/site-health/lifetime-note.ts';
import { WATCH_PRICE_NOTE } from '../../watches/pricing.ts';
import { openApiPath } from './openapi.ts';
import { DOCUMENTATION, DOCUMENTATION_NOTE } from './documentation.ts';
import { absoluteUrl, DOCUMENT_PATHS, SERVICE_TITLE } from '../../vocabulary/document-paths.ts';

export const LLMS_TXT_MEDIA_TYPE = 'text/markdown; charset=utf-8';

/** "0.01" → "$0.01". */
function dollars(priceUsd: string): string {
  return `$${priceUsd}`;
}

function priceRange(): string {
  const prices = [...new Set(paidOperations.map((operation) => operation.priceUsd))];
  return prices.map(dollars).join(' or ');
}

function paymentSteps(): string[] {
  return [
    '**How to pay (x402 v2, USDC on Base):**',
    '',
    '1. Call the route without payment; the answer is HTTP 402 with a `PAYMENT-REQUIRED` header: base64 of the JSON PaymentRequired (`x402Version: 2`, `resource`, `accepts[]` with `scheme: "exact"`, `network`, `amount` in USDC atomic units, `asset`, `payTo`).',
    '2. Pick an entry of `accepts` and sign an EIP-3009 `transferWithAuthorization` for that amount to `payTo` (any x402 v2 client library does this).',
    '3. Retry the same request with a `PAYMENT-SIGNATURE` header: base64 of the JSON PaymentPayload, which carries the chosen requirements in `accepted`.',
    '4. The service verifies the payment, runs the check and settles only when it succeeds; the 200 response carries a `PAYMENT-RESPONSE` header (base64 JSON SettleResponse with the transaction hash).',
    '5. A missing or invalid domain is answered 400 before any payment and is never charged; if an upstream fails the answer is 502 and the payment is not settled, so retry later.',
  ];
}

function operationLines(base: string): string[] {
  const example = (route: `/${string}`) =>
    `\`curl -i '${absoluteUrl(base, route)}?domain=${EXAMPLE_DOMAIN}'\``;
  const lines = ['**Operations** (all GET, one required query parameter `domain`):', ''];
  for (const operation of paidOperations) {
    lines.push(
      `- \`${operation.method} ${operation.route}\` (${dollars(operation.priceUsd)}, MCP tool \`${operation.tool}\`): ${operation.summary} Example: ${example(operation.route)}`,
    );
  }
  for (const operation of freeOperations) {
    if (!operation.route) continue;
    lines.push(
      `- \`GET ${operation.route}\` (free, MCP tool \`${operation.tool}\`): ${operation.summary} Example: ${example(operation.route)}`,
    );
  }
  return lines;
}

/** The watch price of an operation: the paid POST's, or free. */
const watchPrice = (method: string) => (method === 'POST' ? WATCH_PRICE_NOTE : 'free');

function watchLines(base: string): string[] {
  const example = `\`curl -i -X POST '${absoluteUrl(base, '/v1/watches')}' -H 'content-type: application/json' -d '{"domain":"${EXAMPLE_DOMAIN}","days":30}'\``;
  return [
    '**Watches** (a domain kept under the site-health check, an event each time its state changes):',
    '',
    ...watchOperations.map(
      (operation) =>
        `- \`${operation.method} ${openApiPath(operation.route)}\` (${watchPrice(operation.method)}, MCP tool \`${operation.tool}\`): ${operation.summary}`,
    ),
    '',
    `Buy one with a JSON body and the same 402 → \`PAYMENT-SIGNATURE\` exchange (${example}); the 201 holds \`watch_id\`, \`token\` (send it as \`Authorization: Bearer\` to the free calls) and \`webhook_secret\`, shown once. With an \`https\` \`webhook_url\` in the body each event is POSTed there, signed per Standard Webhooks 1.0 (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`); without it the watch is read by pull. No refund.`,
  ];
}

function mcpLines(base: string): string[] {
  const tools = [
    ...paidOperations.map((operation) => `\`${operation.tool}\` (${dollars(operation.priceUsd)})`),
    ...freeOperations.map((operation) => `\`${operation.tool}\` (free)`),
    ...watchOperations.map((operation) => `\`${operation.tool}\` (${watchPrice(operation.method)})`),
  ];
  return [
    `**MCP:** Streamable HTTP, stateless, POST only, at ${absoluteUrl(base, DOCUMENT_PATHS.mcp)}. Tools: ${tools.join(', ')}. A paid tool called without payment returns an isError result whose structuredContent is the x402 PaymentRequired; retry with the PaymentPayload in \`params._meta["x402/payment"]\`; the receipt comes back in \`_meta["x402/payment-response"]\`.`,
  ];
}

function lifetimeLines(): string[] {
  return ['**64-day certificates:**', '', ...LIFETIME_FACTS.map((fact) => `- ${fact}`)];
}

function documentationLines(): string[] {
  return [
    `**Documentation:** ${DOCUMENTATION_NOTE}`,
    '',
    ...DOCUMENTATION.map(({ path, about }) => `- \`${path}\`: ${about}`),
  ];
}

function linkSections(base: string): string[] {
  const url = (path: `/${string}`) => absoluteUrl(base, path);
  const operationLinks = [...paidOperations, ...freeOperations].flatMap((operation) =>
    operation.route
      ? [
          `- [${operation.title}](${url(operation.route)}?domain=${EXAMPLE_DOMAIN}): ${'priceUsd' in operation ? dollars(operation.priceUsd) : 'free'}, GET ${operation.route}`,
        ]
      : [],
  );
  return [
    '## API',
    '',
    `- [OpenAPI 3.1 description](${url(DOCUMENT_PATHS.openapi)}): every operation, its schemas and its price (x-payment-info)`,
    ...operationLinks,
    '',
    '## MCP',
    '',
    `- [MCP endpoint](${url(DOCUMENT_PATHS.mcp)}): Streamable HTTP, stateless, POST only`,
    `- [MCP server card](${url(DOCUMENT_PATHS.serverCard)}): SEP-2127 card with the supported protocol versions`,
    '',
    '## Optional',
    '',
    `- [API catalog](${url(DOCUMENT_PATHS.apiCatalog)}): RFC 9727 linkset`,
    `- [x402 manifest](${url(DOCUMENT_PATHS.x402)}): legacy list of the paid resources`,
    `- [AI catalog](${url(DOCUMENT_PATHS.aiCatalog)}): the MCP server card and the OpenAPI description`,
    `- [Sitemap](${url(DOCUMENT_PATHS.sitemap)}): the public documents`,
    `- [Health](${url(DOCUMENT_PATHS.health)}): liveness`,
  ];
}

/** The llms.txt text for a service published at `publicBaseUrl`. */
export function buildLlmsTxt(publicBaseUrl: string): string {
  const summary = `> Pay-per-call HTTP API and MCP server that checks a domain's certificate status (Certificate Transparency logs, renewal-stall heuristic, live HTTPS probe), DNS and email authentication, and registration expiry (RDAP). Each check costs ${priceRange()} in USDC via x402 v2; domain validation is free.`;
  return [
    `# ${SERVICE_TITLE}`,
    '',
    summary,
    '',
    `Start with the free \`GET /v1/validate?domain=...\` to normalize a domain before paying. Results are data, not guarantees.`,
    '',
    ...paymentSteps(),
    '',
    ...operationLines(publicBaseUrl),
    '',
    ...watchLines(publicBaseUrl),
    '',
    ...mcpLines(publicBaseUrl),
    '',
    ...lifetimeLines(),
    '',
    ...documentationLines(),
    '',
    ...linkSections(publicBaseUrl),
    '',
  ].join('\n');
}
