/**
 * What a listing crawler sees, against the running service: every resource the service publishes
 * (`/.well-known/x402`, `/openapi.json`'s `x-payment-info` operations, and the `resource.url` of each
 * 402 it gets) is probed as the CDP Bazaar `validate` preflight does: `reachable`, `returns_402`,
 * `has_bazaar_extension`, `parse`. Each 402 must name the very resource probed and carry discovery
 * data a catalogue accepts (schemas that compile with no external `$ref`, descriptions of at most
 * 500 characters, service name and tags within the limits). The specification's 400s stay: a
 * request without a domain, or with an invalid one.
 */
import { HTTPFacilitatorClient } from '@x402/core/server';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { parsePaymentRequired } from '@x402/core/schemas';
import type { PaymentRequired } from '@x402/core/types';
import {
  isValidIconUrl,
  isValidServiceName,
  sanitizeTags,
  validateDiscoveryExtension,
} from '@x402/extensions/bazaar';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidOperations, WATCHES_ROUTE } from '../../src/catalog.ts';
import { MAX_PAID_QUERY } from '../../src/http/payment-gate.ts';
import { type FakeFacilitator, startFakeFacilitator } from '../world/facilitator.ts';
import { type McpService, startMcpService } from '../world/mcp-service.ts';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const MAX_DESCRIPTION = 500;

let facilitator: FakeFacilitator;
let service: McpService;

beforeAll(async () => {
  facilitator = await startFakeFacilitator('eip155:8453');
  service = await startMcpService({
    facilitator: new HTTPFacilitatorClient({ url: facilitator.url.origin }),
    payTo: PAY_TO,
  });
});
afterAll(async () => {
  await service?.close();
  await facilitator?.close();
});

const base = () => service.config.publicBaseUrl;

type Json = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: { example?: unknown };
}

/** The resource URLs `/.well-known/x402` lists. */
async function manifestResources(): Promise<string[]> {
  const manifest = (await (await fetch(`${base()}/.well-known/x402`)).json()) as { resources: string[] };
  return manifest.resources;
}

/** One URL per `x-payment-info` operation: the server URL, the path, its required query examples. */
async function openApiResources(): Promise<string[]> {
  const document = (await (await fetch(`${base()}/openapi.json`)).json()) as {
    servers: { url: string }[];
    paths: Record<string, Record<string, { 'x-payment-info'?: unknown; parameters?: OpenApiParameter[] }>>;
  };
  const server = document.servers[0]?.url ?? '';
  const urls: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation['x-payment-info']) continue;
      // A GET cannot buy or extend a watch: their paid POSTs are no resource for a GET crawler (their
      // 402s and bazaar body declarations are tested in test/integration/watches*.test.ts).
      if (method === 'post' && path.startsWith(WATCHES_ROUTE)) continue;
      expect(method, path).toBe('get');
      const query = new URLSearchParams();
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query' || !parameter.required) continue;
        const example = parameter.example ?? parameter.schema?.example;
        expect(example, `${path} ${parameter.name} has an example`).toBeDefined();
        query.set(parameter.name, String(example));
      }
      urls.push(`${server}${path}?${query}`);
    }
  }
  return urls;
}

/** Every `$ref` in `schema` (to check none points outside the document). */
function refsIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(refsIn);
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value] : refsIn(value),
  );
}

/** Every `description` string anywhere in `value`. */
function descriptionsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(descriptionsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'description' && typeof inner === 'string' ? [inner] : descriptionsIn(inner),
  );
}

interface Probe {
  url: string;
  reachable: boolean;
  returns402: boolean;
  hasBazaarExtension: boolean;
  parse: boolean;
  paymentRequired?: PaymentRequired;
}

/** CDP's `validate` checks for one URL, with the decoded challenge for the finer checks below. */
async function validateLike(url: string): Promise<Probe> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch {
    return { url, reachable: false, returns402: false, hasBazaarExtension: false, parse: false };
  }
  await res.arrayBuffer();
  const header = res.headers.get('payment-required');
  let paymentRequired: PaymentRequired | undefined;
  try {
    paymentRequired = decodePaymentRequiredHeader(header ?? '');
  } catch {
    paymentRequired = undefined;
  }
  const parse = paymentRequired !== undefined && parsePaymentRequired(paymentRequired).success;
  const bazaar = paymentRequired?.extensions?.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
  return {
    url,
    reachable: true,
    returns402: res.status === 402,
    hasBazaarExtension: bazaar !== undefined && validateDiscoveryExtension(bazaar).valid,
    parse,
    ...(paymentRequired ? { paymentRequired } : {}),
  };
}

/** The checks a catalogue applies to the discovery data of one challenge. */
function expectListable(url: string, paymentRequired: PaymentRequired): void {
  const { resource } = paymentRequired;
  expect(resource.url, 'the 402 names the resource probed').toBe(url);
  expect(isValidServiceName(resource.serviceName), `serviceName ${resource.serviceName}`).toBe(true);
  expect(resource.tags?.length).toBeGreaterThan(0);
  expect(sanitizeTags(resource.tags), 'tags within the limits').toEqual(resource.tags);
  if (resource.iconUrl !== undefined) expect(isValidIconUrl(resource.iconUrl)).toBe(true);

  const bazaar = paymentRequired.extensions?.bazaar as { info: Json; schema: Json };
  for (const description of [...descriptionsIn(resource), ...descriptionsIn(bazaar.info)]) {
    expect(description.length, description.slice(0, 60)).toBeLessThanOrEqual(MAX_DESCRIPTION);
  }
  expect(
    refsIn(bazaar.schema).filter((ref) => !ref.startsWith('#')),
    'no external $ref',
  ).toEqual([]);
  const validate = new Ajv2020({ strict: false }).compile(bazaar.schema);
  expect(validate(bazaar.info), JSON.stringify(validate.errors)).toBe(true);
  const output = (bazaar.schema.properties as { output?: { properties?: { example?: Json } } }).output;
  expect(output?.properties?.example, 'an output schema').toMatchObject({ type: 'object' });
}

describe('listing crawler', () => {
  it('publishes every paid route in /.well-known/x402 and /openapi.json, each with an example domain', async () => {
    const fromManifest = await manifestResources();
    const fromOpenApi = await openApiResources();
    const routes = paidOperations.map((operation) => `${base()}${operation.route}?domain=example.com`);
    expect(fromManifest).toEqual(routes);
    expect(fromOpenApi.sort()).toEqual([...routes].sort());
  });

  it("passes CDP validate's checks for every published resource and every 402's resource.url", async () => {
    const queue = [...new Set([...(await manifestResources()), ...(await openApiResources())])];
    const probed = new Map<string, Probe>();
    while (queue.length > 0) {
      const url = queue.shift() ?? '';
      if (probed.has(url)) continue;
      const probe = await validateLike(url);
      probed.set(url, probe);
      expect(probe, url).toMatchObject({
        reachable: true,
        returns402: true,
        hasBazaarExtension: true,
        parse: true,
      });
      expectListable(url, probe.paymentRequired as PaymentRequired);
      queue.push((probe.paymentRequired as PaymentRequired).resource.url);
    }
    expect(probed.size).toBe(paidOperations.length);
  });

  it('names the requested URL with its own query, whatever the query carries', async () => {
    const hostile = [
      'domain=B%C3%BCcher.de&utm_source=%22%3E%3Cscript%3E',
      'domain=example.com&domain=example.org',
      `domain=example.com&pad=${'x'.repeat(MAX_PAID_QUERY - 23)}`,
    ];
    for (const query of hostile) {
      const url = `${base()}/v1/dns?${query}`;
      const probe = await validateLike(url);
      expect(probe, query.slice(0, 40)).toMatchObject({
        returns402: true,
        parse: true,
        hasBazaarExtension: true,
      });
      expectListable(url, probe.paymentRequired as PaymentRequired);
    }
    // Longer, its challenge would not fit a default reverse proxy's buffer: 414, no challenge.
    const tooLong = await fetch(`${base()}/v1/dns?domain=example.com&pad=${'x'.repeat(2000)}`);
    expect(tooLong.status).toBe(414);
    expect(tooLong.headers.get('payment-required')).toBeNull();
  });

  it('keeps the specification 400s: no domain, an empty one, an invalid one; none carries a challenge', async () => {
    for (const operation of paidOperations) {
      for (const [query, code] of [
        ['', 'missing_domain'],
        ['?domain=', 'missing_domain'],
        ['?domain=exa_mple..com', 'invalid_domain'],
        ['?domain=10.0.0.1', 'invalid_domain'],
      ] as const) {
        const res = await fetch(`${base()}${operation.route}${query}`);
        expect(res.status, `${operation.route}${query}`).toBe(400);
        expect(res.headers.get('payment-required')).toBeNull();
        expect(await res.json()).toMatchObject({ code });
      }
    }
    expect(service.runs()).toBe(0);
  });
});
