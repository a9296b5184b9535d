import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { freeOperations, paidOperations, watchOperations } from '../../../../src/catalog.ts';
import { createDiscoveryApp, isPublicUrl, type Json, PUBLIC_BASE_URL } from './discovery-app.ts';

async function fetchOpenApi(): Promise<{ response: Response; doc: Json }> {
  const response = await createDiscoveryApp().request('/openapi.json');
  return { response, doc: (await response.clone().json()) as Json };
}

function resolveRef(doc: Json, schema: Json): Json {
  const name = String(schema.$ref).replace('#/components/schemas/', '');
  return doc.components.schemas[name];
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1.0 document (swagger-parser), served as JSON', async () => {
    const { response, doc } = await fetchOpenApi();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.0');
    // validate() dereferences in place, so give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    // The validator does bite: a parameter in an unknown location is rejected.
    const broken = structuredClone(doc);
    broken.paths['/v1/cert'].get.parameters[0].in = 'body';
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
  });

  it('names the public base as its server and points agents at llms.txt', async () => {
    const { doc } = await fetchOpenApi();
    expect(doc.servers).toEqual([{ url: PUBLIC_BASE_URL }]);
    expect(doc.info['x-guidance']).toMatch(/402/);
    expect(doc.info['x-guidance']).toMatch(/PAYMENT-SIGNATURE/);
    expect(doc['x-agentcash-guidance']).toEqual({ llmsTxtUrl: `${PUBLIC_BASE_URL}/llms.txt` });
    expect(isPublicUrl(doc['x-agentcash-guidance'].llmsTxtUrl)).toBe(true);
  });

  it('has exactly one GET operation per catalog route plus /health and /readyz, with the catalog ids', async () => {
    const { doc } = await fetchOpenApi();
    const routes = [...paidOperations, ...freeOperations].flatMap((operation) =>
      operation.route ? [operation] : [],
    );
    const watchPaths = [
      '/v1/watches',
      '/v1/watches/{watch_id}',
      '/v1/watches/{watch_id}/extend',
      '/v1/watches/{watch_id}/rotate-secret',
      '/v1/watches/{watch_id}/rotate-token',
    ];
    expect(Object.keys(doc.paths).sort()).toEqual(
      [...routes.map((operation) => operation.route), ...watchPaths, '/health', '/readyz'].sort(),
    );
    for (const operation of routes) {
      expect(Object.keys(doc.paths[operation.route as string])).toEqual(['get']);
      expect(doc.paths[operation.route as string].get.operationId).toBe(operation.id);
    }
    expect(routes.map((operation) => operation.id).sort()).toEqual([
      'v1_cert',
      'v1_dns',
      'v1_expiry',
      'v1_site_health',
      'v1_validate',
    ]);
  });

  it('describes the watch operations from the catalog: a paid POST priced pro rata, two token-managed calls, the webhook', async () => {
    const { doc } = await fetchOpenApi();
    for (const operation of watchOperations) {
      const path = operation.route.replace(':watch_id', '{watch_id}');
      const described = doc.paths[path][operation.method.toLowerCase()];
      expect(described.operationId).toBe(operation.id);
      expect(described.description).toBe(operation.description);
    }
    const create = doc.paths['/v1/watches'].post;
    expect(create['x-payment-info']).toEqual({
      price: { mode: 'dynamic', currency: 'USD', min: '0.003334', max: '1' },
      protocols: [{ x402: {} }],
    });
    expect(create.security).toEqual([]);
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['201', '400', '402', '409', '429', '502', '503']),
    );
    const created = resolveRef(doc, create.responses['201'].content['application/json'].schema);
    expect(created.required).toEqual(
      expect.arrayContaining(['watch_id', 'token', 'webhook_secret', 'refund']),
    );
    const body = resolveRef(doc, create.requestBody.content['application/json'].schema);
    expect(body.required).toEqual(['domain']);
    expect(body.properties.days).toMatchObject({ minimum: 1, maximum: 300 });

    const managed = doc.paths['/v1/watches/{watch_id}'];
    // The token or the paying wallet's sign-in (x402 sign-in-with-x); without either the auth-only 402.
    expect(managed.get.security).toEqual([{ watchToken: [] }, { walletSignIn: [] }]);
    expect(managed.delete.security).toEqual([{ watchToken: [] }, { walletSignIn: [] }]);
    expect(managed.get.responses['404']).toBeDefined();
    expect(Object.keys(managed.get.responses)).toEqual(expect.arrayContaining(['401', '402']));
    expect(doc.paths['/v1/watches'].get.security).toEqual([{ walletSignIn: [] }]);
    expect(doc.components.securitySchemes.walletSignIn).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'SIGN-IN-WITH-X',
    });
    expect(doc.components.securitySchemes.watchToken).toMatchObject({ type: 'http', scheme: 'bearer' });

    const webhook = doc.webhooks.watchEvent.post;
    expect(webhook.parameters.map((p: Json) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    const event = resolveRef(doc, webhook.requestBody.content['application/json'].schema);
    expect(event.properties.type.enum).toEqual(
      expect.arrayContaining(['watch.created', 'watch.alert', 'watch.ended']),
    );
  });

  it('gives every paid operation x-payment-info with the catalog price, a 402 with PAYMENT-REQUIRED, and no auth', async () => {
    const { doc } = await fetchOpenApi();
    for (const operation of paidOperations) {
      const get = doc.paths[operation.route].get;
      expect(get['x-payment-info']).toEqual({
        price: { mode: 'fixed', currency: 'USD', amount: operation.priceUsd },
        protocols: [{ x402: {} }],
      });
      expect(get.security).toEqual([]);
      expect(get.responses['402'].headers['PAYMENT-REQUIRED'].required).toBe(true);
      expect(get.responses['402'].headers['PAYMENT-REQUIRED'].schema).toEqual({ type: 'string' });
      expect(get.responses['200'].headers['PAYMENT-RESPONSE']).toBeDefined();
    }
    expect(doc.paths['/v1/site-health'].get['x-payment-info'].price.amount).toBe('0.03');
  });

  it('leaves free routes without x-payment-info and with security: []', async () => {
    const { doc } = await fetchOpenApi();
    for (const path of ['/v1/validate', '/health', '/readyz']) {
      expect(doc.paths[path].get['x-payment-info']).toBeUndefined();
      expect(doc.paths[path].get.security).toEqual([]);
      expect(doc.paths[path].get.responses['402']).toBeUndefined();
    }
    expect(
      resolveRef(doc, doc.paths['/health'].get.responses['200'].content['application/json'].schema),
    ).toMatchObject({ properties: { status: { const: 'ok' } }, required: ['status'] });
    const readiness = doc.paths['/readyz'].get.responses;
    expect(Object.keys(readiness).sort()).toEqual(['200', '4XX', '503']);
    expect(resolveRef(doc, readiness['503'].content['application/json'].schema)).toMatchObject({
      properties: { status: { enum: ['ready', 'not_ready'] } },
      required: ['status', 'payments', 'stopping', 'breakers'],
    });
  });

  it('requires the domain query parameter with example "example.com" on every check route', async () => {
    const { doc } = await fetchOpenApi();
    for (const operation of [...paidOperations, freeOperations[0]]) {
      const domain = doc.paths[operation?.route as string].get.parameters.find(
        (p: Json) => p.name === 'domain',
      );
      expect(domain).toMatchObject({
        in: 'query',
        required: true,
        example: 'example.com',
        schema: { type: 'string' },
      });
    }
  });

  it('describes each 200 body with the JSON Schema 2020-12 form of the catalog output schema', async () => {
    const { doc } = await fetchOpenApi();
    for (const operation of [...paidOperations, ...freeOperations]) {
      if (!operation.route || !operation.output) continue;
      const schema = doc.paths[operation.route].get.responses['200'].content['application/json'].schema;
      const { $schema: _dialect, ...expected } = z.toJSONSchema(operation.output, {
        target: 'draft-2020-12',
        io: 'output',
      });
      expect(resolveRef(doc, schema)).toEqual(expected);
    }
  });

  it('describes 400, 409, 429, 502 and 503 as application/problem+json with the contract fields', async () => {
    const { doc } = await fetchOpenApi();
    const problem = doc.components.schemas.Problem;
    expect(Object.keys(problem.properties).sort()).toEqual([
      'code',
      'detail',
      'status',
      'title',
      'type',
      'upstreams',
    ]);
    expect(problem.required.sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
    for (const operation of paidOperations) {
      const responses = doc.paths[operation.route].get.responses;
      for (const status of ['400', '409', '429', '502', '503']) {
        expect(responses[status].content['application/problem+json'].schema).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
      expect(Object.keys(responses).sort()).toEqual(['200', '400', '402', '409', '429', '502', '503']);
    }
  });
});
