/**
 * `GET /` for people (a browser's `Accept: text/html`): what the service does, its prices, how to
 * pay, copyable examples, the discovery documents, and an API reference that Swagger UI renders
 * from `/openapi.json`. Built once per base URL; scripts and styles are same-origin files only.
 */
import { EXAMPLE_DOMAIN, freeOperations, paidOperations, watchOperations } from '../../catalog.ts';
import { WATCH_PRICE_NOTE } from '../../watches/pricing.ts';
import { openApiPath } from './openapi.ts';
import {
  absoluteUrl,
  DOCUMENT_PATHS,
  SERVICE_SHORT_DESCRIPTION,
  SERVICE_TITLE,
  SERVICE_VERSION,
} from '../../vocabulary/document-paths.ts';
import { DOCUMENTATION, DOCUMENTATION_NOTE } from './documentation.ts';
import { FAVICON, PAGE_ASSETS } from '../../vocabulary/page-assets.ts';
import { escapeXml as escapeHtml } from './sitemap.ts';
import { REPO_CLI } from '../../startup-messages.ts';

export const HTML_MEDIA_TYPE = 'text/html; charset=utf-8';

/**
 * Only this origin's scripts; inline styles for Swagger UI's rendering. A request to any other
 * origin would be blocked and reported as a console error (the browser test looks for those).
 */
export const HOME_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DOCUMENT_LINKS: { path: `/${string}`; label: string }[] = [
  { path: DOCUMENT_PATHS.openapi, label: 'OpenAPI 3.1 with prices (x-payment-info)' },
  { path: DOCUMENT_PATHS.llmsTxt, label: 'llms.txt: the service for language models' },
  { path: DOCUMENT_PATHS.serverCard, label: 'MCP server card' },
  { path: DOCUMENT_PATHS.apiCatalog, label: 'API catalog (RFC 9727)' },
  { path: DOCUMENT_PATHS.aiCatalog, label: 'AI catalog' },
  { path: DOCUMENT_PATHS.x402, label: 'x402 resource list' },
  { path: DOCUMENT_PATHS.sitemap, label: 'Sitemap' },
  { path: DOCUMENT_PATHS.health, label: 'Health' },
];

function example(label: string, command: string): string {
  return `<h3>${escapeHtml(label)}</h3>
<div class="command" data-label="${escapeHtml(label)}"><pre><code>${escapeHtml(command)}</code></pre></div>`;
}

function priceRows(local: (path: `/${string}`) => string): string {
  const get = (route: string | null) =>
    route
      ? `<a href="${local(route as `/${string}`)}?domain=${EXAMPLE_DOMAIN}"><code>GET ${route}</code></a>`
      : 'MCP only';
  const rows = [
    ...paidOperations.map((op) => [get(op.route), op.tool, `$${op.priceUsd}`, op.summary] as const),
    ...freeOperations.map((op) => [get(op.route), op.tool, 'free', op.summary] as const),
    ...watchOperations.map(
      (op) =>
        [
          `<code>${op.method} ${openApiPath(op.route)}</code>`,
          op.tool,
          op.method === 'POST' ? escapeHtml(WATCH_PRICE_NOTE) : 'free',
          op.summary,
        ] as const,
    ),
  ];
  return rows
    .map(
      ([http, tool, price, summary]) =>
        `<tr><td class="route">${http}</td><td class="tool"><code>${tool}</code></td><td class="price">${price}</td><td class="summary">${escapeHtml(summary)}</td></tr>`,
    )
    .join('\n');
}

/** The page for a service published at `publicBaseUrl`; links are root-relative under its path. */
export function buildHomePage(publicBaseUrl: string): string {
  const base = publicBaseUrl;
  const prefix = new URL(base).pathname.replace(/\/$/, '');
  const local = (path: `/${string}`) => escapeHtml(`${prefix}${path}`);
  const cert = `${absoluteUrl(base, '/v1/cert')}?domain=${EXAMPLE_DOMAIN}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${SERVICE_TITLE}: pay-per-call domain checks for agents</title>
<meta name="description" content="${escapeHtml(SERVICE_SHORT_DESCRIPTION)}">
<link rel="icon" href="${local(FAVICON.paths[0] ?? '/favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${local(PAGE_ASSETS.style.path)}">
<link rel="stylesheet" href="${local(PAGE_ASSETS.swaggerStyle.path)}">
<link rel="service-desc" href="${local(DOCUMENT_PATHS.openapi)}" type="application/vnd.oai.openapi+json">
<link rel="api-catalog" href="${local(DOCUMENT_PATHS.apiCatalog)}">
<link rel="alternate" href="${local(DOCUMENT_PATHS.llmsTxt)}" type="text/markdown">
<script src="${local(PAGE_ASSETS.swaggerScript.path)}" defer></script>
<script src="${local(PAGE_ASSETS.script.path)}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<h1>${SERVICE_TITLE}</h1>
<p class="lead">Certificate, DNS and registration-expiry checks for one domain per call, built for software agents and paid per call in USDC with <a href="https://x402.org">x402</a>: no account, no API key.</p>
</header>
<main id="main">
<h2 id="prices">Checks and prices</h2>
<table>
<caption class="skip">Every operation, its MCP tool and its price</caption>
<thead><tr><th scope="col">HTTP</th><th scope="col">MCP tool</th><th scope="col">Price</th><th scope="col">What it returns</th></tr></thead>
<tbody>
${priceRows(local)}
</tbody>
</table>
<p>Every result is JSON with stable field names and finding codes; every error is RFC 9457 problem JSON. An invalid domain is refused with 400 before any payment, an upstream failure answers 502 and is never settled, and a signature already in flight gets 409. Results are data, not guarantees.</p>

<h2 id="pay">How to pay</h2>
<ol>
<li>Call a paid route. The answer is <code>402 Payment Required</code> with a <code>PAYMENT-REQUIRED</code> header: base64 JSON naming the price in USDC atomic units (<code>"10000"</code> is $0.01), the network (Base, <code>eip155:8453</code>) and the recipient.</li>
<li>Sign an EIP-3009 <code>transferWithAuthorization</code> for it with any x402 v2 client.</li>
<li>Send the same request again with the <code>PAYMENT-SIGNATURE</code> header. The answer carries the result and a <code>PAYMENT-RESPONSE</code> header with the settlement's transaction hash.</li>
</ol>

<h2 id="examples">Examples</h2>
${example('Validate a domain (free)', `curl -s '${absoluteUrl(base, '/v1/validate')}?domain=${EXAMPLE_DOMAIN}'`)}
${example('See the price: decode the 402 challenge', `curl -s -o /dev/null -D - '${cert}' | grep -i '^payment-required:' | cut -d' ' -f2 | tr -d '\\r' | base64 -d`)}
${example('Pay for a check with the command-line client (in a clone of the service, after npm ci)', `X402_PRIVATE_KEY=0x… ${REPO_CLI} site-health ${EXAMPLE_DOMAIN} --url ${base} --max-usd 0.05`)}
${example('Add the MCP server to Claude Code', `claude mcp add --transport http website-checks ${absoluteUrl(base, DOCUMENT_PATHS.mcp)}`)}
<p>Over MCP, a paid tool called without payment returns <code>isError</code> with the x402 <code>PaymentRequired</code> in <code>structuredContent</code>; send the signed payload in <code>_meta["x402/payment"]</code> and read the receipt from <code>_meta["x402/payment-response"]</code>.</p>

<h2 id="documents">Machine-readable documents</h2>
<ul class="links">
${DOCUMENT_LINKS.map(({ path, label }) => `<li><a href="${local(path)}">${escapeHtml(label)}</a> <code>${path}</code></li>`).join('\n')}
</ul>

<h2 id="documentation">Documentation</h2>
<p>${escapeHtml(DOCUMENTATION_NOTE)}</p>
<ul class="links">
${DOCUMENTATION.map(({ path, about }) => `<li><code>${path}</code>: ${escapeHtml(about)}</li>`).join('\n')}
</ul>

<h2 id="reference">API reference</h2>
<div id="api-reference" data-openapi="${local(DOCUMENT_PATHS.openapi)}"><p>The interactive reference needs JavaScript; read <a href="${local(DOCUMENT_PATHS.openapi)}">the OpenAPI document</a> instead.</p></div>
</main>
<footer><p>${SERVICE_TITLE} ${SERVICE_VERSION}. Agents asking for JSON at this address get the JSON index instead of this page.</p></footer>
</body>
</html>
`;
}
