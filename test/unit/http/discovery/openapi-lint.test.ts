/**
 * `/openapi.json` against Redocly's `recommended` ruleset (@redocly/openapi-core, run in-process:
 * the built-in ruleset, no config file, no plugin, and the document has only local `$ref`s, so the
 * linter has nothing to fetch; `fetch` is replaced for the run to prove it). And the 429 of the
 * free-work limit is documented on exactly the operations the limit covers.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Hono } from 'hono';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../../src/config.ts';
import { createApp } from '../../../../src/app.ts';
import { NO_OP_GATE } from '../../../../src/http/payment-gate.ts';
import { isFreeWork } from '../../../../src/http/ops/free-work.ts';
import { type Json, throwingRunners } from './discovery-app.ts';

/** A production-like origin: the ruleset warns about example.com and localhost servers. */
const PUBLIC_BASE_URL = 'https://checks.website-checks.test';

async function servedDocument(): Promise<Json> {
  const app = createApp({
    payments: NO_OP_GATE,
    config: loadConfig({ PUBLIC_BASE_URL }),
    logger: pino({ level: 'silent' }),
    runners: throwingRunners(),
  });
  return (await (await app.request('/openapi.json')).json()) as Json;
}

async function recommendedLint(doc: Json): Promise<string[]> {
  const offline = vi.fn(() => Promise.reject(new Error('the linter tried to reach the network')));
  vi.stubGlobal('fetch', offline);
  try {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: `${process.cwd()}/openapi.json`,
      config,
    });
    expect(offline).not.toHaveBeenCalled();
    return problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
    );
  } finally {
    vi.unstubAllGlobals();
  }
}

afterEach(() => vi.unstubAllGlobals());

describe('OpenAPI document and Redocly recommended', () => {
  it('lints clean: no error and no warning', async () => {
    expect(await recommendedLint(await servedDocument())).toEqual([]);
  }, 30_000);

  it('the linter bites: without the licence, or without a 4xx, it warns', async () => {
    const doc = await servedDocument();
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    delete doc.info.license;
    delete doc.paths['/health'].get.responses['4XX'];
    const problems = await recommendedLint(doc);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^warn info-license #\/info/),
        expect.stringMatching(/^warn operation-4xx-response #\/paths\/~1health\/get\/responses/),
      ]),
    );
  }, 30_000);

  it('documents 429 on exactly the operations the free-work limit covers', async () => {
    const doc = await servedDocument();
    // The limit's own decision, asked through a real Hono context for each documented operation.
    const probe = new Hono().all('*', async (c) => c.json({ limited: await isFreeWork(c) }));
    const paths = Object.keys(doc.paths as Record<string, unknown>);
    expect(paths.length).toBeGreaterThan(5);
    let operations = 0;
    for (const path of paths) {
      for (const method of ['get', 'post', 'delete'].filter((m) => m in doc.paths[path])) {
        operations++;
        const url = `${path.replace('{watch_id}', 'wat_example')}?domain=example.com`;
        const res = await probe.request(url, { method: method.toUpperCase() });
        const { limited } = (await res.json()) as { limited: boolean };
        const responses = doc.paths[path][method].responses as Record<string, Json>;
        expect('429' in responses, `${method} ${path}: 429 documented iff limited`).toBe(limited);
        if (limited) expect(responses['429']?.headers).toHaveProperty('Retry-After');
      }
    }
    // The watch's GET and DELETE share a path, and so do the wallet's list (GET) and the purchase (POST).
    expect(operations, 'two paths hold two operations').toBe(paths.length + 2);
    expect(doc.paths['/v1/cert'].get.responses['429']).toBeDefined();
    expect(doc.paths['/health'].get.responses['429']).toBeUndefined();
  });
});
