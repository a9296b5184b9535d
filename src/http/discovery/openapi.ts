/**
 * `/openapi.json`: the OpenAPI 3.1.0 description, generated from the catalog. Paid operations carry
 * `x-payment-info` (agentcash discovery v1) with the catalog's decimal USD price.
 */
import { z } from 'zod';
import {
  EXAMPLE_DOMAIN,
  DEFAULT_PRICE_PER_30_DAYS_USD,
  type FreeOperation,
  freeOperations,
  type PaidOperation,
  paidOperations,
  type WatchOperation,
  watchOperations,
} from '../../catalog.ts';
import { MAX_INPUT_LENGTH } from '../../domain/normalize.ts';
import { PROBLEM_MEDIA_TYPE } from '../../vocabulary/problems.ts';
import { OPS_PATHS } from '../ops/routes.ts';
import { MAX_DAYS, MIN_DAYS, watchPriceUsd } from '../../watches/pricing.ts';
import {
  walletListSchema,
  watchCreatedSchema,
  watchEventSchema,
  watchInputShape,
  watchRotatedSchema,
  watchStatusSchema,
} from '../../watches/schemas.ts';
import {
  absoluteUrl,
  DOCUMENT_PATHS,
  SERVICE_TITLE,
  SERVICE_VERSION,
} from '../../vocabulary/document-paths.ts';

type JsonObject = Record<string, unknown>;

const OPENAPI_VERSION = '3.1.0';

/** Short guidance for agents, shown by discovery clients (`info.x-guidance`). */
export const AGENT_GUIDANCE =
  'Each check takes one query parameter, domain (e.g. example.com). Call the free GET /v1/validate first to avoid a refused request. ' +
  'A paid route answers an unpaid call with HTTP 402 and a PAYMENT-REQUIRED header (base64 JSON, x402 v2); pay with USDC on Base ' +
  'and retry the same request with a PAYMENT-SIGNATURE header. An invalid domain is a 400 before payment and is never charged; ' +
  'an upstream failure is a 502 and is never settled. The same checks are MCP tools at /mcp.';

const problemSchema = z.object({
  type: z.string().describe('A stable URN per code, e.g. urn:website-checks:problem:invalid_domain.'),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string().describe('Stable machine-readable code, e.g. invalid_domain, upstream_failed.'),
  upstreams: z
    .array(z.object({ name: z.string(), error: z.string() }))
    .optional()
    .describe('On 502 only: which upstream failed and how.'),
});

const healthSchema = z.object({ status: z.literal('ok') });
const readinessSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  payments: z
    .boolean()
    .describe('The facilitator named its supported payment kinds (payments can be taken).'),
  stopping: z.boolean().describe('The process is shutting down.'),
  breakers: z
    .record(z.string(), z.enum(['closed', 'open', 'half_open']))
    .describe('Upstream circuit breakers by source; an open one is skipped for a cool-down.'),
});

/** Zod → JSON Schema 2020-12 (the dialect of OpenAPI 3.1), without the `$schema` keyword. */
function jsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' });
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function problemResponse(description: string): JsonObject {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ref('Problem') } } };
}

/**
 * 429 of the free-work limit (`RATE_LIMIT_*`): a paid route's unpaid challenge and `/v1/validate`
 * are free work; a paid request carrying a payment never is.
 */
const rateLimitedResponse: JsonObject = {
  ...problemResponse(
    'rate_limited: too many free requests (the unpaid 402 challenge, validation) from one client address; retry after Retry-After seconds. Requests carrying a payment are not limited.',
  ),
  headers: {
    'Retry-After': {
      description: 'Seconds until a free request is allowed again.',
      schema: { type: 'integer' },
    },
    'RateLimit-Policy': {
      description: 'The limit: burst and window (draft-ietf-httpapi-ratelimit-headers).',
      schema: { type: 'string' },
    },
  },
};

/**
 * The client errors of the operational endpoints, which take no input: a request the HTTP server
 * itself refuses before any route (malformed, or headers over its size limit: 400, 431).
 */
const malformedRequestResponse: JsonObject = {
  description:
    'The HTTP request is malformed or too large (e.g. 431 for headers over the server limit); refused before any route runs.',
};

const domainParameter = {
  name: 'domain',
  in: 'query',
  required: true,
  description: 'A hostname or URL; it is normalized to its ASCII form (scheme, port and path are dropped).',
  schema: { type: 'string', minLength: 1, maxLength: MAX_INPUT_LENGTH },
  example: EXAMPLE_DOMAIN,
};

const paymentSignatureParameter = {
  name: 'PAYMENT-SIGNATURE',
  in: 'header',
  required: false,
  description: 'x402 v2 payment: base64 of the JSON PaymentPayload, sent on the retry after a 402.',
  schema: { type: 'string' },
};

/** Fields every operation shares; `security: []` means no API auth (payment, if any, is x402). */
function operationHeader(
  operation: PaidOperation | FreeOperation | WatchOperation,
  tag: 'checks' | 'free' | 'watches',
): JsonObject {
  return {
    operationId: operation.id,
    summary: operation.summary,
    description: operation.description,
    tags: [tag],
    security: [],
  };
}

/** The answer of a paid call that delivered: the result and the settlement receipt. */
function settledResponse(description: string, schema: string): JsonObject {
  return {
    description,
    headers: {
      'PAYMENT-RESPONSE': {
        description: 'x402 v2 settlement receipt: base64 of the JSON SettleResponse.',
        schema: { type: 'string' },
      },
    },
    content: { 'application/json': { schema: ref(schema) } },
  };
}

/** The 402, 409, 429, 502 and 503 answers every paid operation shares; `price` as people read it. */
function paymentResponses(price: string): Record<string, JsonObject> {
  return {
    '402': {
      description: `Payment required: ${price} in USDC (x402 v2).`,
      headers: {
        'PAYMENT-REQUIRED': {
          required: true,
          description:
            'base64 of the JSON PaymentRequired: x402Version 2, resource, accepts[] (scheme exact, network, amount in atomic units, asset, payTo).',
          schema: { type: 'string' },
        },
      },
      content: { 'application/json': { schema: { type: 'object' } } },
    },
    '409': problemResponse(
      'payment_in_flight: a request carrying the same payment signature is still running; that payment runs the check once. Not charged; retry later with a new payment.',
    ),
    '429': rateLimitedResponse,
    '502': problemResponse('An upstream data source failed; the payment is not settled.'),
    '503': problemResponse(
      'payment_unavailable: payments cannot be verified or settled right now (facilitator, RPC or chain), or shutting_down: the service stopped before settling. Never charged; see Retry-After.',
    ),
  };
}

function paidPathItems(): Record<string, JsonObject> {
  const items: Record<string, JsonObject> = {};
  for (const operation of paidOperations) {
    items[operation.route] = {
      get: {
        ...operationHeader(operation, 'checks'),
        parameters: [domainParameter, paymentSignatureParameter],
        'x-payment-info': {
          price: { mode: 'fixed', currency: 'USD', amount: operation.priceUsd },
          protocols: [{ x402: {} }],
        },
        responses: {
          '200': settledResponse(`${operation.title}; payment settled.`, `${operation.id}_result`),
          '400': problemResponse('Missing or invalid domain, decided before payment; never charged.'),
          ...paymentResponses(`$${operation.priceUsd}`),
        },
      },
    };
  }
  return items;
}

function freePathItems(): Record<string, JsonObject> {
  const items: Record<string, JsonObject> = {};
  for (const operation of freeOperations) {
    if (!operation.route || !operation.output) continue;
    items[operation.route] = {
      get: {
        ...operationHeader(operation, 'free'),
        parameters: [domainParameter],
        responses: {
          '200': {
            description: `${operation.title} (also 200 when the domain is invalid: see valid and reason).`,
            content: { 'application/json': { schema: ref(`${operation.id}_result`) } },
          },
          '400': problemResponse('The domain parameter is missing or too long.'),
          '429': rateLimitedResponse,
        },
      },
    };
  }
  items[DOCUMENT_PATHS.health] = {
    get: {
      operationId: 'health',
      summary: 'Free: liveness.',
      tags: ['free'],
      security: [],
      responses: {
        '200': {
          description: 'The service is up.',
          content: { 'application/json': { schema: ref('Health') } },
        },
        '4XX': malformedRequestResponse,
      },
    },
  };
  items[OPS_PATHS.readyz] = {
    get: {
      operationId: 'readiness',
      summary: 'Free: readiness — 200 only while payments can be taken and the process is not stopping.',
      tags: ['free'],
      security: [],
      responses: {
        '200': {
          description: 'Ready for traffic.',
          content: { 'application/json': { schema: ref('Readiness') } },
        },
        '4XX': malformedRequestResponse,
        '503': {
          description: 'Not ready: the facilitator cannot be reached, or the process is stopping.',
          content: { 'application/json': { schema: ref('Readiness') } },
        },
      },
    },
  };
  return items;
}

const watchOperation = (id: WatchOperation['id']) =>
  watchOperations.find((operation) => operation.id === id) as WatchOperation;

/** The documented path of a Hono route: `:watch_id` → `{watch_id}` (OpenAPI path templating). */
export const openApiPath = (route: string) => route.replace(/:(\w+)/g, '{$1}');

const watchIdParameter = {
  name: 'watch_id',
  in: 'path',
  required: true,
  description: 'The watch_id of the 201 that bought the watch.',
  schema: { type: 'string', maxLength: 64 },
};

/** The watch's token, one key to its management calls (Authorization: Bearer). */
const WATCH_TOKEN_SCHEME = 'watchToken';
/** The other: a sign-in of the wallet that paid for it (x402 sign-in-with-x). */
const WALLET_SIGN_IN_SCHEME = 'walletSignIn';

const signInResponses = {
  '401': problemResponse(
    'invalid_sign_in: the SIGN-IN-WITH-X proof does not hold (the reason is in `detail`).',
  ),
  '402': problemResponse(
    'sign_in_required: neither a token nor a sign-in; the PAYMENT-REQUIRED header is the x402 auth-only challenge (accepts: [], extensions["sign-in-with-x"] to sign). No payment.',
  ),
};

const notFoundResponse = problemResponse(
  'not_found: no watch with this id is managed by this token (a wrong token and an unknown id are alike).',
);

/** A watch's price for `days`, at the default price per 30 days. */
const price = (days: number) => watchPriceUsd(DEFAULT_PRICE_PER_30_DAYS_USD, days);

/** A paid watch call's price, as the `x-payment-info` of discovery: pro rata of `days`. */
const dynamicPaymentInfo = () => ({
  price: { mode: 'dynamic', currency: 'USD', min: price(MIN_DAYS), max: price(MAX_DAYS) },
  protocols: [{ x402: {} }],
});

/** A call on one watch, by its token or a sign-in of the wallet that paid for it. */
function managed(operation: WatchOperation, description: string, schema = 'WatchStatus'): JsonObject {
  return {
    ...operationHeader(operation, 'watches'),
    security: [{ [WATCH_TOKEN_SCHEME]: [] }, { [WALLET_SIGN_IN_SCHEME]: [] }],
    responses: {
      '200': { description, content: { 'application/json': { schema: ref(schema) } } },
      ...signInResponses,
      '404': notFoundResponse,
      '429': rateLimitedResponse,
    },
  };
}

/** The signed-in wallet's watches, a page at a time. */
function watchListOperation(): JsonObject {
  return {
    ...operationHeader(watchOperation('v1_watch_list'), 'watches'),
    security: [{ [WALLET_SIGN_IN_SCHEME]: [] }],
    parameters: [
      {
        name: 'cursor',
        in: 'query',
        required: false,
        description: 'The next_cursor of the previous page.',
        schema: { type: 'string', maxLength: 80 },
      },
    ],
    responses: {
      '200': {
        description: "The signed-in wallet's watches, newest first.",
        content: { 'application/json': { schema: ref('WalletWatches') } },
      },
      '400': problemResponse('invalid_cursor: not a next_cursor this service gave out.'),
      ...signInResponses,
      '429': rateLimitedResponse,
    },
  };
}

/** The paid POST that buys a watch. */
function watchCreateOperation(create: WatchOperation): JsonObject {
  return {
    ...operationHeader(create, 'watches'),
    parameters: [paymentSignatureParameter],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: ref('WatchRequest') } },
    },
    'x-payment-info': dynamicPaymentInfo(),
    responses: {
      '201': settledResponse(
        'The watch, with its token and webhook secret (shown only here); payment settled.',
        'WatchCreated',
      ),
      '400': problemResponse(
        'invalid_body, missing_domain, invalid_domain, invalid_webhook_url or invalid_days, decided before payment; never charged.',
      ),
      ...paymentResponses(`$${price(30)} per 30 days, pro rata of days`),
    },
  };
}

/** The paid POST that adds days to a watch, managed like the free calls. */
function watchExtendOperation(extend: WatchOperation): JsonObject {
  const extension = managed(extend, 'The extended watch; payment settled.') as JsonObject & {
    responses: JsonObject;
  };
  return {
    ...extension,
    parameters: [paymentSignatureParameter],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['days'],
            properties: { days: { type: 'integer', minimum: MIN_DAYS, maximum: MAX_DAYS } },
          },
        },
      },
    },
    'x-payment-info': dynamicPaymentInfo(),
    responses: {
      ...extension.responses,
      '400': problemResponse('invalid_body or invalid_days, decided before payment; never charged.'),
      ...paymentResponses(`$${price(30)} per 30 days, pro rata of days`),
      '402': {
        description: `Payment required (PAYMENT-REQUIRED: $${price(30)} per 30 days, pro rata of days), or sign_in_required (neither a token nor a sign-in: the x402 auth-only challenge, no payment).`,
        headers: { 'PAYMENT-REQUIRED': { required: true, schema: { type: 'string' } } },
      },
      '409': problemResponse(
        'watch_not_active: the watch has ended or was cancelled; or payment_in_flight. Never charged.',
      ),
    },
  };
}

/** The watch operations: a paid POST priced pro rata of `days`, and two free token-managed calls. */
function watchPathItems(): Record<string, JsonObject> {
  const create = watchOperation('v1_watch_create');
  const status = watchOperation('v1_watch_status');
  const cancel = watchOperation('v1_watch_cancel');
  const extend = watchOperation('v1_watch_extend');
  const rotations = [watchOperation('v1_watch_rotate_secret'), watchOperation('v1_watch_rotate_token')];
  return {
    [openApiPath(create.route)]: { get: watchListOperation(), post: watchCreateOperation(create) },
    [openApiPath(status.route)]: {
      parameters: [watchIdParameter],
      get: {
        ...managed(status, 'The watch, its latest result, events and delivery attempts.'),
        parameters: [
          {
            name: 'since',
            in: 'query',
            required: false,
            description: 'An event id of this watch: list only the events after it.',
            schema: { type: 'string', maxLength: 64 },
          },
        ],
      },
      delete: managed(cancel, 'The cancelled watch (no refund).'),
    },
    [openApiPath(extend.route)]: { parameters: [watchIdParameter], post: watchExtendOperation(extend) },
    ...Object.fromEntries(
      rotations.map((operation) => [
        openApiPath(operation.route),
        {
          parameters: [watchIdParameter],
          post: managed(operation, 'The new token or webhook secret, shown once.', 'WatchRotated'),
        },
      ]),
    ),
  };
}

/** The event a watch POSTs to its `webhook_url` (OpenAPI 3.1 `webhooks`), signed per Standard Webhooks 1.0. */
function watchWebhooks(): Record<string, JsonObject> {
  const header = (description: string) => ({ required: true, description, schema: { type: 'string' } });
  return {
    watchEvent: {
      post: {
        operationId: 'watch_event',
        summary: "A watch's event, POSTed to its webhook_url.",
        description:
          "Signed per Standard Webhooks 1.0 with the watch's webhook_secret. Answer 2xx within 15 s; anything else is retried with the same webhook-id (5 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h, 12 h), and 410 stops deliveries to the URL.",
        tags: ['watches'],
        security: [],
        parameters: [
          { name: 'webhook-id', in: 'header', ...header('The event id, the same on every attempt.') },
          { name: 'webhook-timestamp', in: 'header', ...header('Unix seconds of this attempt.') },
          {
            name: 'webhook-signature',
            in: 'header',
            ...header(
              'v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"> under the secret.',
            ),
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('WatchEvent') } } },
        responses: {
          '2XX': { description: 'Delivered.' },
          '410': { description: 'Stop delivering to this URL.' },
        },
      },
    },
  };
}

function componentSchemas(): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = {
    Problem: jsonSchema(problemSchema),
    Health: jsonSchema(healthSchema),
    Readiness: jsonSchema(readinessSchema),
    WatchRequest: jsonSchema(z.object(watchInputShape)),
    WatchCreated: jsonSchema(watchCreatedSchema),
    WatchStatus: jsonSchema(watchStatusSchema),
    WalletWatches: jsonSchema(walletListSchema),
    WatchRotated: jsonSchema(watchRotatedSchema),
    WatchEvent: jsonSchema(watchEventSchema),
  };
  for (const operation of [...paidOperations, ...freeOperations]) {
    if (operation.route && operation.output) schemas[`${operation.id}_result`] = jsonSchema(operation.output);
  }
  return schemas;
}

/** The OpenAPI 3.1.0 document for a service published at `publicBaseUrl`. */
export function buildOpenApiDocument(publicBaseUrl: string): JsonObject {
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: SERVICE_TITLE,
      version: SERVICE_VERSION,
      description:
        'Pay-per-call domain checks for software agents: certificate status from Certificate Transparency logs with a renewal-stall heuristic, DNS and email authentication, registration expiry from RDAP, and a site-health bundle. Paid with x402 v2 in USDC on Base.',
      'x-guidance': AGENT_GUIDANCE,
      contact: { name: SERVICE_TITLE, url: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.index) },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    'x-agentcash-guidance': { llmsTxtUrl: absoluteUrl(publicBaseUrl, DOCUMENT_PATHS.llmsTxt) },
    servers: [{ url: publicBaseUrl }],
    tags: [
      { name: 'checks', description: 'Paid per call with x402 v2.' },
      { name: 'free', description: 'No payment.' },
      { name: 'watches', description: 'A domain kept under the site-health check, with signed webhooks.' },
    ],
    paths: { ...paidPathItems(), ...watchPathItems(), ...freePathItems() },
    webhooks: watchWebhooks(),
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        [WATCH_TOKEN_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'The token of the 201 that bought the watch (or of its latest rotate-token).',
        },
        [WALLET_SIGN_IN_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'SIGN-IN-WITH-X',
          description:
            'x402 sign-in-with-x (CAIP-122 / SIWE) of the wallet whose authorization paid for the watch: base64 of the signed payload, over the challenge an auth-only 402 gives (single-use nonce, a few minutes).',
        },
      },
    },
  };
}
