/**
 * What `npm start` (embedded chain, no REDIS_URL) loads before it listens: not the MCP SDK, loaded
 * on the first POST /mcp, nor viem's index of every chain (src/payments/chain/base-chain.ts). Each
 * cost megabytes of idle memory (bench/README.md, rss30). The first /mcp request then loads the
 * SDK and is answered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommand } from '../../bench/http.ts';
import { freePort } from '../support/free-port.ts';
import { REPO_ROOT } from '../support/run-command.ts';

const STARTUP_TIMEOUT_MS = 45_000;
const dir = mkdtempSync(join(tmpdir(), 'startup-modules-'));
const loads = join(dir, 'loads.txt');
let service: ChildProcess;
let base = '';

const loaded = () => readFileSync(loads, 'utf8').trim().split('\n');
const mcpSdk = (url: string) => url.includes('/node_modules/@modelcontextprotocol/');
/** `viem/chains`, which loads all ~740 chain definitions. */
const viemChainList = (url: string) => url.endsWith('/node_modules/viem/_esm/chains/index.js');
const viemChain = (url: string) => url.includes('/node_modules/viem/_esm/chains/definitions/');

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const { flags, entry } = startCommand();
  service = spawn(
    process.execPath,
    [...flags, '--import', join(REPO_ROOT, 'test/support/record-module-loads.ts'), entry],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        WATCH_DB_PATH: join(dir, 'watches.db'),
        RECORD_MODULE_LOADS: loads,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`not listening:\n${stdout}`)), STARTUP_TIMEOUT_MS);
    service.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('"msg":"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    service.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${stdout}`)));
  });
}, STARTUP_TIMEOUT_MS + 5_000);

afterAll(async () => {
  if (service.exitCode === null) {
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start, listening', () => {
  it('has loaded viem and the x402 packages, but neither the MCP SDK nor viem’s chain list', () => {
    const urls = loaded();
    expect(urls.some((url) => url.includes('/node_modules/viem/'))).toBe(true);
    expect(urls.some((url) => url.includes('/node_modules/@x402/evm/'))).toBe(true);
    expect(urls.filter(mcpSdk)).toEqual([]);
    expect(urls.filter(viemChainList)).toEqual([]);
    // viem's OP Stack module names its own chains (Base among them), a few dozen.
    expect(urls.filter(viemChain).length).toBeLessThan(50);
  });

  it('loads the SDK on the first POST /mcp and answers it, then the next', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    };
    const post = (body: unknown) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const first = await post(initialize);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(loaded().some(mcpSdk)).toBe(true);
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(4);
  });
});
