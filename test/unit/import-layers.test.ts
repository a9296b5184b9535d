import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { layers } from '../../eslint.layers.ts';

const root = join(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

// ESLint loads its configuration, plugins and resolver on the first lint: seconds on a quiet machine,
// more than a test's timeout on a busy one. Paid once here, under a bound for a broken set-up only.
beforeAll(() => eslint.lintText('', { filePath: join(root, 'src/domain/warm-up.ts') }), 180_000);

/** The messages of `rule` ESLint gives `code` as if it were the file `filePath` (which need not exist). */
async function layerErrors(
  filePath: string,
  code: string,
  rule = 'import-x/no-restricted-paths',
): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === rule)
    .map((message) => message.message);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative(root, path)] : [];
  });
}

/** Each module of src/ and the modules of src/ it imports, type-only imports included. */
function importGraph(): Map<string, string[]> {
  const specifier = /(?:import|export)\s[^'";]*?from\s*'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  return new Map(
    sourceFiles(join(root, 'src')).map((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      const targets = [...text.matchAll(specifier)].map((match) =>
        relative(root, resolve(dirname(join(root, file)), match[1] ?? match[2] ?? '')),
      );
      return [file, targets];
    }),
  );
}

/** One circle through `start`, as the path that closes it, or null. */
function circleThrough(graph: Map<string, string[]>, start: string): string[] | null {
  const seen = new Set<string>();
  const walk = (file: string, path: string[]): string[] | null => {
    for (const next of graph.get(file) ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [start]);
}

describe('imports run down the layers (eslint.layers.ts)', () => {
  it.each([
    [
      'src/domain/fixture.ts',
      "export type { RunOutcome } from '../checks/outcome.ts';",
      'domain sits below checks',
    ],
    [
      'src/sources/fixture.ts',
      "export type { DnsResult } from '../checks/dns/result.ts';",
      'sources sits below checks',
    ],
    ['src/sources/fixture.ts', "export type { Metrics } from '../ops/metrics.ts';", 'sources sits below ops'],
    [
      'src/checks/fixture.ts',
      "export type { CheckRunners } from '../catalog.ts';",
      'checks sits below catalog',
    ],
    [
      'src/ops/fixture.ts',
      "export { PROBLEM_CODES } from '../vocabulary/problems.ts';",
      'ops sits below vocabulary',
    ],
    [
      'src/vocabulary/fixture.ts',
      "export { sendProblem } from '../http/send-problem.ts';",
      'vocabulary sits below transports',
    ],
    [
      'src/payments/server/fixture.ts',
      "export { createHttpApp } from '../../http/app.ts';",
      'payment server sits below transports',
    ],
    [
      'src/payments/server/fixture.ts',
      "export type { Payments } from '../payments.ts';",
      'payment server sits below payments composition',
    ],
    [
      'src/payments/facilitator/fixture.ts',
      "export { createPaidCall } from '../server/paid-call.ts';",
      'payment facilitator sits below payment server',
    ],
    [
      'src/payments/chain/fixture.ts',
      "export type { Settle } from '../facilitator/settlement.ts';",
      'payment authorization and chain sits below payment facilitator',
    ],
    [
      'src/payments/server/fixture.ts',
      "export { createFacilitator } from '../facilitator/facilitator.ts';",
      'src/payments/server/ reaches src/payments/facilitator/ only through settlement.ts',
    ],
    [
      'src/payments/server/fixture.ts',
      "export type { BroadcastJournal } from '../facilitator/broadcast-journal.ts';",
      'src/payments/server/ reaches src/payments/facilitator/ only through settlement.ts',
    ],
    [
      'src/payments/server/fixture.ts',
      "export type { WatchRecord } from '../../watches/model.ts';",
      'payment server sits below watches',
    ],
    [
      'src/watches/fixture.ts',
      "export { sendProblem } from '../http/send-problem.ts';",
      'watches sits below transports',
    ],
    [
      'src/watches/fixture.ts',
      "export { successResult } from '../mcp/tool-result.ts';",
      'watches sits below transports',
    ],
    [
      'src/watches/fixture.ts',
      "export { openSqliteWatchStore } from '../sqlite/watch-store.ts';",
      'watches sits below platforms',
    ],
    [
      'src/http/fixture.ts',
      "export type { Platform } from '../service.ts';",
      'transports sits below platforms',
    ],
    ['src/mcp/fixture.ts', "export * from '../redis/connection.ts';", 'transports sits below platforms'],
    ['src/http/fixture.ts', "export { createApp } from '../app.ts';", 'transports sits below app'],
    ['src/app.ts', "export type { Platform } from './service.ts';", 'app sits below platforms'],
    [
      'src/http/fixture.ts',
      "export { mcpEndpoint } from '../mcp/endpoint.ts';",
      'src/http/ and src/mcp/ never import each other',
    ],
    [
      'src/http/watches/fixture.ts',
      "export type { WatchTool } from '../../mcp/watches/tool-config.ts';",
      'src/http/ and src/mcp/ never import each other',
    ],
    [
      'src/mcp/fixture.ts',
      "export { replyJson } from '../http/hygiene/index.ts';",
      'src/http/ and src/mcp/ never import each other',
    ],
  ])('%s: %s is refused', async (file, code, reason) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(reason);
  });

  it.each([
    ['src/checks/fixture.ts', "export type { ValidDomain } from '../domain/normalize.ts';"],
    ['src/sources/fixture.ts', "export { createBreakerBoard } from './breaker.ts';"],
    ['src/payments/server/fixture.ts', "export { PROBLEM_CODES } from '../../vocabulary/problems.ts';"],
    ['src/payments/server/fixture.ts', "export type { Settle } from '../facilitator/settlement.ts';"],
    ['src/payments/facilitator/fixture.ts', "export { baseChainAt } from '../chain/base-chain.ts';"],
    ['src/payments/fixture.ts', "export { createFacilitator } from './facilitator/facilitator.ts';"],
    ['src/http/fixture.ts', "export type { Payments } from '../payments/payments.ts';"],
    ['src/watches/fixture.ts', "export type { Payments } from '../payments/payments.ts';"],
    ['src/http/fixture.ts', "export type { Watches } from '../watches/ports.ts';"],
    ['src/mcp/fixture.ts', "export type { Watches } from '../watches/ports.ts';"],
    ['src/edge/fixture.ts', "export { createApp } from '../app.ts';"],
    ['src/app.ts', "export { mcpEndpoint } from './mcp/endpoint.ts';"],
    ['src/app.ts', "export { createHttpApp } from './http/app.ts';"],
    ['src/http/fixture.ts', "export { PAYMENT_META_KEY } from '../vocabulary/x402-mcp-meta.ts';"],
    ['src/mcp/fixture.ts', "export { outcomeProblem } from '../vocabulary/outcome-problem.ts';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });

  it.each([
    ['src/payments/server/fixture.ts', "import type { Context } from 'hono';"],
    ['src/payments/facilitator/fixture.ts', "export { Hono } from 'hono';"],
    ['src/payments/fixture.ts', "export { streamSSE } from 'hono/streaming';"],
    ['src/payments/server/fixture.ts', "export type { CallToolResult } from '@modelcontextprotocol/server';"],
    ['src/watches/fixture.ts', "import { type Context, Hono } from 'hono';"],
    ['src/watches/fixture.ts', "export type { CallToolResult } from '@modelcontextprotocol/server';"],
  ])('%s: %s is refused (payments and watches speak no transport)', async (file, code) => {
    const errors = await layerErrors(file, code, 'no-restricted-imports');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('speak no transport');
  });

  it('lets the HTTP adapter of payments import Hono', async () => {
    expect(
      await layerErrors(
        'src/http/fixture.ts',
        "import type { Context } from 'hono';",
        'no-restricted-imports',
      ),
    ).toEqual([]);
  });

  it('places every module of src/ in exactly one layer', () => {
    const placed = (file: string) => {
      const exact = layers.filter((layer) => layer.paths.includes(file));
      if (exact.length > 0) return exact;
      return layers.filter((layer) =>
        layer.paths.some((path) => path.endsWith('/') && file.startsWith(path)),
      );
    };
    const misplaced = sourceFiles(join(root, 'src')).filter((file) => placed(file).length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('has no circle among the modules of src/, type-only imports included', () => {
    const graph = importGraph();
    expect(graph.get('src/sources/bounded-fetch.ts')).toContain(
      'src/sources/public-fetch/outbound-refusal.ts',
    );
    const circles = [...graph.keys()].map((file) => circleThrough(graph, file)).filter((c) => c !== null);
    expect(circles).toEqual([]);
  });
});
