/**
 * `/mcp/server.json`, the entry for the official MCP registry: checked against the constraints of
 * the registry's `server.json` schema 2025-12-11 (modelcontextprotocol/registry
 * `docs/reference/server-json`) for every field it carries, written out below because tests stay
 * offline, and against the server card it must agree with.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { buildServerCard } from '../../../../src/http/discovery/server-card.ts';
import { buildServerJson } from '../../../../src/http/discovery/server-json.ts';
import { createDiscoveryApp, type Json, PUBLIC_BASE_URL } from './discovery-app.ts';

/** The registry schema's rules for the fields this entry uses (ServerDetail, StreamableHttpTransport). */
const REGISTRY_RULES = {
  type: 'object',
  required: ['$schema', 'name', 'description', 'version', 'remotes'],
  additionalProperties: false,
  properties: {
    $schema: { const: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json' },
    name: { type: 'string', pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$', minLength: 3, maxLength: 200 },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    // One specific version: no range, no `latest` (the registry refuses both at publish time).
    version: {
      type: 'string',
      maxLength: 255,
      not: { pattern: '[\\^~<>=*\\s]|(^|\\.)[xX](\\.|$)|^latest$' },
    },
    websiteUrl: { type: 'string', pattern: '^https?://' },
    remotes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['type', 'url'],
        additionalProperties: false,
        properties: { type: { const: 'streamable-http' }, url: { type: 'string', pattern: '^https?://' } },
      },
    },
  },
} as const;

describe('GET /mcp/server.json (MCP registry entry)', () => {
  it('is served as JSON and meets the registry schema 2025-12-11 rules', async () => {
    const response = await createDiscoveryApp().request('/mcp/server.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const entry = (await response.json()) as Json;
    const validate = new Ajv({ allErrors: true }).compile(REGISTRY_RULES);
    expect(validate(entry), JSON.stringify(validate.errors)).toBe(true);
    expect(entry.description.length).toBeLessThanOrEqual(100);
  });

  it('names the same server, version and endpoint as the server card', () => {
    const entry = buildServerJson(PUBLIC_BASE_URL);
    const card = buildServerCard(PUBLIC_BASE_URL);
    expect(entry).toMatchObject({ name: card.name, version: card.version, description: card.description });
    expect(entry.name).toBe('com.example.checks/website-checks');
    expect(entry.remotes).toEqual([{ type: 'streamable-http', url: card.remotes[0]?.url }]);
  });

  it('the rules bite: a long description, a version range or a second slash in the name are refused', () => {
    const validate = new Ajv().compile(REGISTRY_RULES);
    const entry = buildServerJson(PUBLIC_BASE_URL);
    expect(validate({ ...entry, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...entry, version: '^1.2.0' })).toBe(false);
    expect(validate({ ...entry, version: 'latest' })).toBe(false);
    expect(validate({ ...entry, name: 'com.example/a/b' })).toBe(false);
    expect(validate({ ...entry, remotes: [{ type: 'sse', url: entry.remotes[0]?.url }] })).toBe(false);
  });
});
