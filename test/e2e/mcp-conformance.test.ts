/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, active suite) against
 * the app on loopback. Scenarios that need test-only tools, resources or prompts are listed, each
 * with its reason, in test/conformance/expected-failures.yml; anything else failing fails this test.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeFacilitator, startFakeFacilitator } from '../world/facilitator.ts';
import { type McpService, startMcpService } from '../world/mcp-service.ts';

const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
// The suite needs Node >= 22 (`globSync` from node:fs); the project's Node 24 runs it.
const NODE = repo('node_modules/.bin/node');
const CONFORMANCE = repo('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES = repo('test/conformance/expected-failures.yml');
const SUITE_TIMEOUT_MS = 60_000;
const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Scenarios this server must pass outright (none of them may be in the baseline). */
const MUST_PASS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let facilitator: FakeFacilitator;
let service: McpService;
let outputDir: string;

beforeAll(async () => {
  facilitator = await startFakeFacilitator('eip155:8453');
  service = await startMcpService({
    facilitator: new HTTPFacilitatorClient({ url: facilitator.url.origin }),
    payTo: PAY_TO,
  });
  outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
});
afterAll(async () => {
  await service?.close();
  await facilitator?.close();
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

async function runSuite(): Promise<{ code: number | null; output: string }> {
  const args = [CONFORMANCE, 'server', '--url', service.mcpUrl.href];
  args.push('--expected-failures', EXPECTED_FAILURES, '-o', outputDir);
  const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

/** Status of every check of `scenario` from its checks.json. */
async function checkStatuses(scenario: string): Promise<string[]> {
  const dirs = (await readdir(outputDir)).filter((dir) => dir.startsWith(`server-${scenario}-`));
  expect(dirs, `results of ${scenario}`).toHaveLength(1);
  const checks = JSON.parse(await readFile(join(outputDir, dirs[0] ?? '', 'checks.json'), 'utf8')) as {
    status: string;
  }[];
  return checks.map((check) => check.status);
}

describe('MCP conformance suite 0.1.16', () => {
  it(
    'passes every applicable scenario; the rest fail as the baseline expects',
    async () => {
      const baseline = await readFile(EXPECTED_FAILURES, 'utf8');
      for (const scenario of MUST_PASS)
        expect(baseline).not.toMatch(new RegExp(`^\\s*- ${scenario}\\s*$`, 'm'));

      const { code, output } = await runSuite();
      expect(code, output).toBe(0);
      for (const scenario of MUST_PASS) {
        const statuses = await checkStatuses(scenario);
        expect(statuses.length, scenario).toBeGreaterThan(0);
        expect(
          statuses.every((status) => status === 'SUCCESS'),
          `${scenario}: ${statuses.join(', ')}`,
        ).toBe(true);
      }
      expect(await checkStatuses('dns-rebinding-protection')).toHaveLength(2);
    },
    SUITE_TIMEOUT_MS + 10_000,
  );
});
