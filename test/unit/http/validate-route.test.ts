/**
 * GET /v1/validate through `app.request()`, and the same input rules on a paid route: an invalid
 * domain is a 400 before any runner or payment logic is reached.
 */
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CheckRunners } from '../../../src/catalog.ts';
import { validateResultSchema } from '../../../src/domain/validate-result.ts';
import { loadConfig } from '../../../src/config.ts';
import { MAX_INPUT_LENGTH } from '../../../src/domain/normalize.ts';
import { createApp } from '../../../src/app.ts';
import { PROBLEM_MEDIA_TYPE } from '../../../src/vocabulary/problems.ts';
import type { Payments } from '../../../src/payments/payments.ts';

/** Every call to a runner or to the payment gate, which these routes must never reach. */
let reached: string[] = [];

function refuse(name: string): never {
  reached.push(name);
  throw new Error(`${name} must not be called`);
}

const runners: CheckRunners = {
  cert: async () => refuse('cert'),
  dns: async () => refuse('dns'),
  expiry: async () => refuse('expiry'),
  siteHealth: async () => refuse('siteHealth'),
  admit: async () => refuse('admit'),
};

/** Payments whose every entry point records that it was reached. */
const payments = {
  resourceServer: {},
  facilitatorReady: async () => refuse('payment:facilitatorReady'),
  paidCall: async () => refuse('payment:paidCall'),
  terms: { http: async () => refuse('payment:terms'), mcp: async () => refuse('payment:terms') },
  lock: {},
  lifecycle: {},
} as unknown as Payments;

const app = createApp({ config: loadConfig({}), runners, logger: pino({ level: 'silent' }), payments });

async function get(
  path: string,
): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const response = await app.request(path);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

const validate = (rawQuery: string) => get(`/v1/validate?${rawQuery}`);

beforeEach(() => {
  reached = [];
  return () => expect(reached).toEqual([]);
});

describe('GET /v1/validate: 200', () => {
  it('answers a valid domain with every field, matching the published schema', async () => {
    const { status, type, body } = await validate('domain=www.example.co.uk');
    expect(status).toBe(200);
    expect(type).toMatch(/^application\/json/);
    expect(body).toEqual({
      valid: true,
      input: 'www.example.co.uk',
      domain: 'www.example.co.uk',
      unicode: 'www.example.co.uk',
      registrable_domain: 'example.co.uk',
      public_suffix: 'co.uk',
      is_apex: false,
    });
    expect(validateResultSchema.safeParse(body).success).toBe(true);
  });

  it('decodes a percent-encoded IDN and reports both forms', async () => {
    const { status, body } = await validate('domain=B%C3%BCcher.DE.');
    expect(status).toBe(200);
    expect(body).toEqual({
      valid: true,
      input: 'Bücher.DE.',
      domain: 'xn--bcher-kva.de',
      unicode: 'bücher.de',
      registrable_domain: 'xn--bcher-kva.de',
      public_suffix: 'de',
      is_apex: true,
    });
  });

  it('takes the hostname from a percent-encoded URL and keeps the input as given', async () => {
    const url = 'https://user@evil.com@example.com:8443/path?q=1#frag';
    const { body } = await validate(`domain=${encodeURIComponent(url)}`);
    expect(body).toMatchObject({ valid: true, input: url, domain: 'example.com', is_apex: true });
  });

  it('reads the first of repeated `domain` parameters', async () => {
    const { status, body } = await validate('domain=example.com&domain=printer.local');
    expect(status).toBe(200);
    expect(body).toMatchObject({ valid: true, input: 'example.com', domain: 'example.com' });
  });

  it.each([
    ['127.0.0.1', 'ip_literal'],
    ['%5B%3A%3A1%5D', 'ip_literal'],
    ['localhost', 'localhost'],
    ['printer.local', 'reserved_name'],
    ['co.uk', 'public_suffix'],
    ['intranet', 'single_label'],
    ['foo.zzz', 'undelegated_tld'],
    ['a_b.com', 'invalid_characters'],
    ['example.com%00.evil.com', 'invalid_characters'],
    ['example.com%0d%0aX-Injected:%201', 'invalid_characters'],
    ['xn--zz.com', 'invalid_idn'],
    ['.', 'empty'],
  ])('answers invalid %s with valid:false, nulls and reason %s', async (query, code) => {
    const { status, type, body } = await validate(`domain=${query}`);
    expect(status).toBe(200);
    expect(type).toMatch(/^application\/json/);
    expect(body).toEqual({
      valid: false,
      input: decodeURIComponent(query),
      domain: null,
      unicode: null,
      registrable_domain: null,
      public_suffix: null,
      is_apex: null,
      reason: { code, message: expect.stringMatching(/\.$/) },
    });
    expect(validateResultSchema.safeParse(body).success).toBe(true);
  });

  it(`accepts input of exactly ${MAX_INPUT_LENGTH} characters and refuses it as too long`, async () => {
    const { status, body } = await validate(`domain=${'a'.repeat(MAX_INPUT_LENGTH)}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ valid: false, reason: { code: 'too_long' } });
  });
});

describe('GET /v1/validate: 400 problem JSON', () => {
  it.each([
    ['a missing parameter', '/v1/validate', 'missing_domain'],
    ['an empty parameter', '/v1/validate?domain=', 'missing_domain'],
    ['a blank parameter', '/v1/validate?domain=%20%09', 'missing_domain'],
    ['another parameter only', '/v1/validate?host=example.com', 'missing_domain'],
    [
      `input over ${MAX_INPUT_LENGTH} characters`,
      `/v1/validate?domain=${'a'.repeat(MAX_INPUT_LENGTH + 1)}`,
      'invalid_domain',
    ],
    ['10 KB of input', `/v1/validate?domain=${'a.'.repeat(5 * 1024)}com`, 'invalid_domain'],
  ])('refuses %s', async (_what, path, code) => {
    const { status, type, body } = await get(path);
    expect(status).toBe(400);
    expect(type).toBe(PROBLEM_MEDIA_TYPE);
    expect(body).toMatchObject({ status: 400, code, type: `urn:website-checks:problem:${code}` });
    expect(body.detail).toEqual(expect.any(String));
  });
});

describe('paid route input', () => {
  it('answers /v1/dns?domain=bad..name with 400 invalid_domain before any runner or payment', async () => {
    const { status, type, body } = await get('/v1/dns?domain=bad..name');
    expect(status).toBe(400);
    expect(type).toBe(PROBLEM_MEDIA_TYPE);
    expect(body).toMatchObject({
      status: 400,
      code: 'invalid_domain',
      reason: { code: 'empty_label', message: expect.any(String) },
    });
    expect(body.detail).toBe((body.reason as { message: string }).message);
  });

  it.each([
    ['/v1/cert?domain=127.0.0.1', 'ip_literal'],
    ['/v1/expiry?domain=foo.zzz', 'undelegated_tld'],
    ['/v1/site-health?domain=http%3A%2F%2Flocalhost%3A8080%2F', 'localhost'],
  ])('answers %s with 400 invalid_domain (%s)', async (path, reason) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_domain', reason: { code: reason } });
  });

  it('answers a paid route without `domain` with 400 missing_domain', async () => {
    const { status, body } = await get('/v1/dns');
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'missing_domain' });
  });
});
