/**
 * The operations table (architecture principle 1). HTTP routes, MCP tools, the OpenAPI document,
 * the x402 route config, bazaar extensions, llms.txt, the pricing tool and the server card are all
 * derived from these entries: adding a check is one entry here.
 */
import { z } from 'zod';
import { type CertResult, certResultSchema } from './checks/cert/result.ts';
import { type DnsResult, dnsResultSchema } from './checks/dns/result.ts';
import { type ExpiryResult, expiryResultSchema } from './checks/expiry/result.ts';
import type { RunOutcome } from './checks/outcome.ts';
import { type SiteHealthResult, siteHealthResultSchema } from './checks/site-health/result.ts';
import { validateResultSchema } from './domain/validate-result.ts';
import { MAX_INPUT_LENGTH, type ValidDomain } from './domain/normalize.ts';

/** The wired check runners; `main.ts` builds them from the configured sources. */
export interface CheckRunners {
  cert(domain: ValidDomain): Promise<RunOutcome<CertResult>>;
  dns(domain: ValidDomain): Promise<RunOutcome<DnsResult>>;
  expiry(domain: ValidDomain): Promise<RunOutcome<ExpiryResult>>;
  siteHealth(domain: ValidDomain): Promise<RunOutcome<SiteHealthResult>>;
  /**
   * Refusals known before payment for one operation (e.g. `unsupported_tld` for expiry): an
   * `invalid_input` or `upstream_failed` outcome, or null to proceed.
   */
  admit(
    operation: PaidOperationId,
    domain: ValidDomain,
  ): Promise<Exclude<RunOutcome<never>, { type: 'result' }> | null>;
}

export type PaidOperationId = 'v1_cert' | 'v1_dns' | 'v1_expiry' | 'v1_site_health';

export interface PaidOperation {
  id: PaidOperationId;
  method: 'GET';
  route: `/v1/${string}`;
  tool: string;
  title: string;
  /** One line for lists (OpenAPI summary, llms.txt). */
  summary: string;
  /** Written for a model: what it returns, when to use it, its price. */
  description: string;
  /** Fixed price in USD as a decimal string (contract: money in documents is decimal USD). */
  priceUsd: string;
  /** Topics for listing crawlers (x402 bazaar `resource.tags`: at most 5, each ≤ 32 printable ASCII). */
  tags: readonly string[];
  output: z.ZodType;
  run(runners: CheckRunners, domain: ValidDomain): Promise<RunOutcome<unknown>>;
}

export interface FreeOperation {
  id: 'v1_validate' | 'pricing';
  /** HTTP route, or null for MCP-only operations. */
  route: `/v1/${string}` | null;
  tool: string;
  title: string;
  summary: string;
  description: string;
  output: z.ZodType | null;
}

export const EXAMPLE_DOMAIN = 'example.com';

/** The one input of every domain operation (HTTP query parameter, MCP tool argument), written for a model. */
export const domainInputShape = {
  domain: z
    .string()
    .max(MAX_INPUT_LENGTH)
    .describe(
      'Domain name or URL to check, e.g. example.com or https://www.example.com/path (Unicode and URLs are normalized to the host).',
    ),
};

/** `domainInputShape` as JSON Schema 2020-12, for the x402 bazaar extensions of routes and tools. */
export const DOMAIN_INPUT_JSON_SCHEMA = z.toJSONSchema(z.object(domainInputShape));

const PAYMENT_NOTE =
  'Paid per call with x402 v2 (USDC on Base); an invalid domain is refused before payment and never charged, and an upstream failure is never settled.';

export const paidOperations: readonly PaidOperation[] = [
  {
    id: 'v1_cert',
    method: 'GET',
    route: '/v1/cert',
    tool: 'check_cert',
    title: 'Certificate status',
    summary:
      'Certificate status from Certificate Transparency logs, renewal cadence and stall heuristic, live HTTPS probe.',
    description: `Returns the newest certificate covering the domain as seen in Certificate Transparency logs (issuer, validity, days left, percent of lifetime used), the renewal cadence inferred from CT history with a renewal-stall verdict (ok, watch, stalled, unknown) taken from the CA's own renewal window (ACME Renewal Information, RFC 9773: Let's Encrypt, Google Trust Services) when it publishes one and from the cadence otherwise, the last issuances, and a live HTTPS pass/fail probe. Use it to learn whether a site's certificate is about to lapse or its automated renewal has stopped. Certificate details come from CT logs, not from the certificate the site serves. Price: $0.01. ${PAYMENT_NOTE}`,
    priceUsd: '0.01',
    tags: ['certificates', 'tls', 'certificate-transparency', 'acme', 'monitoring'],
    output: certResultSchema,
    run: (runners, domain) => runners.cert(domain),
  },
  {
    id: 'v1_dns',
    method: 'GET',
    route: '/v1/dns',
    tool: 'check_dns',
    title: 'DNS and email authentication',
    summary:
      'NS, A/AAAA/CNAME, MX, SPF, DMARC, CAA, DNSSEC, MTA-STS and TLS-RPT with plain-English findings.',
    description: `Looks up the domain's DNS live over DNS-over-HTTPS: NS, A/AAAA/CNAME, MX, SPF (with the RFC 7208 lookup count), DMARC (falling back to the organizational domain), CAA (climbing the name tree), DNSSEC status, MTA-STS and TLS-RPT, and renewal readiness (a leftover or delegated _acme-challenge, DNS-PERSIST-01 records and their persistUntil), and returns plain-English findings with stable codes such as spf.too_many_lookups, dmarc.policy_none or dns.validation_persist_expiring. Use it to audit email authentication, DNS configuration or certificate-renewal DNS set-up. Price: $0.01. ${PAYMENT_NOTE}`,
    priceUsd: '0.01',
    tags: ['dns', 'email-security', 'spf', 'dmarc', 'dnssec'],
    output: dnsResultSchema,
    run: (runners, domain) => runners.dns(domain),
  },
  {
    id: 'v1_expiry',
    method: 'GET',
    route: '/v1/expiry',
    tool: 'check_domain_expiry',
    title: 'Registration expiry',
    summary:
      'Registrar, registration and expiry dates, days left, EPP status and nameservers from the registry RDAP server.',
    description: `Reads the domain's registration from its registry's RDAP server, found through the IANA bootstrap: registrar, registration, expiry and last-changed dates, days left, EPP status codes, nameservers and whether DNSSEC is delegated. Use it to learn when a domain must be renewed or whether it is on hold. A TLD without an RDAP service is refused before payment with unsupported_tld. Price: $0.01. ${PAYMENT_NOTE}`,
    priceUsd: '0.01',
    tags: ['domains', 'rdap', 'registration', 'expiry', 'monitoring'],
    output: expiryResultSchema,
    run: (runners, domain) => runners.expiry(domain),
  },
  {
    id: 'v1_site_health',
    method: 'GET',
    route: '/v1/site-health',
    tool: 'site_health',
    title: 'Site health bundle',
    summary:
      'Certificate, DNS and expiry checks together, with a summary, the renewal-stall heuristic and the 64-day certificate note.',
    description: `Runs the certificate, DNS and expiry checks concurrently and returns all three results with a one-sentence summary and overall status (ok, warning, critical), the renewal-stall verdict, and a note on the move to 64-day certificates saying whether this domain's renewal cadence would break. If one source fails the result is partial, with that section replaced by an error. Use it for a complete health check of one domain in one call. Price: $0.03. ${PAYMENT_NOTE}`,
    priceUsd: '0.03',
    tags: ['certificates', 'dns', 'domains', 'tls', 'monitoring'],
    output: siteHealthResultSchema,
    run: (runners, domain) => runners.siteHealth(domain),
  },
];

export const freeOperations: readonly FreeOperation[] = [
  {
    id: 'v1_validate',
    route: '/v1/validate',
    tool: 'validate_target',
    title: 'Validate a domain',
    summary: 'Free: validate and normalize a domain or URL before paying for a check.',
    description:
      'Validates and normalizes a hostname or URL: returns the ASCII and Unicode forms, the registrable domain and public suffix, or the reason it cannot be checked (IP literal, reserved name, undelegated TLD, …). Free; call it before a paid check to avoid a refused request.',
    output: validateResultSchema,
  },
  {
    id: 'pricing',
    route: null,
    tool: 'pricing',
    title: 'Pricing',
    summary:
      'Free: the price of every operation, the payment network, asset and recipient, and the 64-day certificate note.',
    description:
      'Lists every operation with its HTTP route, MCP tool name and price in USD, the x402 payment network, asset and recipient, and the note on 64-day certificate lifetimes. Free.',
    output: null,
  },
];

/** USD decimal string → USDC atomic units (6 decimals), e.g. "0.01" → "10000". */
export function usdToAtomic(priceUsd: string): string {
  const [whole = '0', fraction = ''] = priceUsd.split('.');
  return (BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6))).toString();
}

/** The watch operations (buying and extending are paid, the management calls free): routes, tools and documents derive from them. */
export interface WatchOperation {
  id:
    | 'v1_watch_create'
    | 'v1_watch_status'
    | 'v1_watch_cancel'
    | 'v1_watch_extend'
    | 'v1_watch_list'
    | 'v1_watch_rotate_secret'
    | 'v1_watch_rotate_token';
  method: 'POST' | 'GET' | 'DELETE';
  /** Hono path; `:watch_id` is the watch's id. */
  route:
    | '/v1/watches'
    | '/v1/watches/:watch_id'
    | '/v1/watches/:watch_id/extend'
    | '/v1/watches/:watch_id/rotate-secret'
    | '/v1/watches/:watch_id/rotate-token';
  /** A free POST (every other POST is paid). */
  free?: true;
  tool: string;
  title: string;
  summary: string;
  description: string;
}

export const WATCHES_ROUTE = '/v1/watches';

/** Whether a watch operation is paid (buying) rather than free (managing). */
export const isPaidWatchOperation = (operation: Pick<WatchOperation, 'method' | 'free'>): boolean =>
  operation.method === 'POST' && !operation.free;

/** How a management call proves its right, said alike by every watch operation's description. */
const MANAGED_BY =
  'Needs the watch\'s token (HTTP: Authorization: Bearer; MCP: token) or a sign-in of the wallet that paid for it (x402 sign-in-with-x; HTTP: SIGN-IN-WITH-X header; MCP: _meta["x402/sign-in-with-x"]).';
export { DEFAULT_PRICE_PER_30_DAYS_USD } from './watch-price.ts';

export const watchOperations: readonly WatchOperation[] = [
  {
    id: 'v1_watch_create',
    method: 'POST',
    route: WATCHES_ROUTE,
    tool: 'watch_domain',
    title: 'Watch a domain',
    summary:
      'Keeps a domain under the site-health check for 1–365 days and signals each change of its state (signed webhook or pull).',
    description:
      'Buys a watch: the domain is checked with site-health now (the first result is in the answer) and then every few hours for `days` days (1–365, default 30); each time its set of warning and critical conditions changes (including probe.failed and cert.lifetime_low, less than a fifth of the certificate lifetime left) an event is raised, POSTed to `webhook_url` when given (signed per Standard Webhooks 1.0 with the returned `webhook_secret`) and readable with watch_status. The answer holds `token` and `webhook_secret` once: keep them. Price: $0.10 per 30 days, pro rata, one x402 payment; there is no refund. Invalid input is refused before payment and never charged; a first check that fails is never settled.',
  },
  {
    id: 'v1_watch_status',
    method: 'GET',
    route: '/v1/watches/:watch_id',
    tool: 'watch_status',
    title: 'Watch status',
    summary: "Free: a watch's state, latest result, events (after `since`) and webhook delivery attempts.",
    description: `Returns a watch's status, its current conditions, the latest site-health result, its events (the latest 100, or those after the event id \`since\`) and the latest webhook delivery attempts. Never the token or webhook secret. ${MANAGED_BY} Free.`,
  },
  {
    id: 'v1_watch_cancel',
    method: 'DELETE',
    route: '/v1/watches/:watch_id',
    tool: 'watch_cancel',
    title: 'Cancel a watch',
    summary: 'Free: ends a watch now (no refund).',
    description: `Ends a watch now: no more checks, a final watch.ended event. ${MANAGED_BY} Free; there is no refund.`,
  },
  {
    id: 'v1_watch_extend',
    method: 'POST',
    route: '/v1/watches/:watch_id/extend',
    tool: 'watch_extend',
    title: 'Extend a watch',
    summary: "Moves an active watch's end `days` later, keeping its id, token, secret and events.",
    description: `Extends an active watch by \`days\` (1–300 at the default price): its expires_at moves, its id, token, webhook secret, events and schedule stay. ${MANAGED_BY} Price: $0.10 per 30 days, pro rata, one x402 payment (MCP: _meta["x402/payment"]); an invalid days is refused before payment and never charged, and a watch that has ended or was cancelled is 409 watch_not_active, never charged.`,
  },
  {
    id: 'v1_watch_list',
    method: 'GET',
    route: WATCHES_ROUTE,
    tool: 'watch_list',
    title: "A wallet's watches",
    summary: 'Free: the watches the signed-in wallet bought, newest first (sign-in-with-x).',
    description:
      'Lists the watches bought by the wallet that signs in (x402 sign-in-with-x: HTTP SIGN-IN-WITH-X header; MCP `_meta["x402/sign-in-with-x"]`), newest first, 20 a page; pass `cursor` (the answer\'s next_cursor) for the next page. Without a sign-in the answer is the x402 auth-only 402 (accepts: [], a sign-in-with-x challenge to sign): no payment. The way back to a watch whose token was lost. Free.',
  },
  {
    id: 'v1_watch_rotate_secret',
    method: 'POST',
    route: '/v1/watches/:watch_id/rotate-secret',
    tool: 'watch_rotate_secret',
    title: "Rotate a watch's webhook secret",
    summary: 'Free: a new webhook secret; watch.secret_rotated is signed with the old one.',
    description: `Issues a new webhook secret for a watch with a webhook_url and returns it (once); a watch.secret_rotated event, signed with the old secret, tells the receiver, and later events are signed with the new one. ${MANAGED_BY} Free.`,
    free: true,
  },
  {
    id: 'v1_watch_rotate_token',
    method: 'POST',
    route: '/v1/watches/:watch_id/rotate-token',
    tool: 'watch_rotate_token',
    title: "Rotate a watch's token",
    summary: 'Free: a new token for a watch; the old one stops working at once.',
    description: `Issues a new token for a watch and returns it (once); the old token manages nothing from then on. ${MANAGED_BY} Free.`,
    free: true,
  },
];
