/**
 * The paying CLI as a user runs it (`node bin/website-checks.js …`) against the app on a loopback
 * port and a local chain: it pays, prints the result and the receipt, and exits with the right code.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaidService, startPaidService } from '../world/paid-service.ts';

const BIN = fileURLToPath(new URL('../../bin/website-checks.js', import.meta.url));
const FUNDS = 1_000_000n; // 1 USDC, in atomic units

let service: PaidService;

beforeAll(async () => {
  service = await startPaidService();
});
afterAll(async () => {
  await service?.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args, '--url', service.url.href], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('website-checks CLI', () => {
  it('pays for a check, prints the result on stdout and the settlement on stderr', async () => {
    const payer = await service.newPayer(FUNDS);
    const payTo0 = await service.chain.balanceOf(service.chain.payTo);
    const run = await cli(['cert', 'example.com'], { X402_PRIVATE_KEY: payer.privateKey });
    expect(run.stderr).toMatch(
      /Paid cert: transaction 0x[0-9a-f]{64} payer 0x[0-9a-fA-F]{40} network eip155:8453/,
    );
    expect(run.stderr.toLowerCase()).toContain(payer.address.toLowerCase());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ domain: 'example.com', ct_source: 'crt.sh' });
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - 10_000n);
    expect(await service.chain.balanceOf(service.chain.payTo)).toBe(payTo0 + 10_000n);
  });

  it('refuses to pay above --max-usd: exit 2, nothing charged or run', async () => {
    const payer = await service.newPayer(FUNDS);
    const runs0 = service.runs();
    const run = await cli(['site-health', 'example.com', '--max-usd', '0.02'], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Payment refused by this client/);
    expect(run.stdout).toBe('');
    expect(service.runs()).toBe(runs0);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
  });

  it('exits 2 on an invalid domain and 3 on an upstream failure, charging nothing', async () => {
    const payer = await service.newPayer(FUNDS);
    const env = { X402_PRIVATE_KEY: payer.privateKey };
    const invalid = await cli(['dns', 'exa_mple..com'], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/HTTP 400/);
    service.upstream.failing = true;
    try {
      const failed = await cli(['dns', 'example.com'], env);
      expect(failed.code).toBe(3);
      expect(failed.stderr).toMatch(/HTTP 502[\s\S]*upstream_failed/);
    } finally {
      service.upstream.failing = false;
    }
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
  });

  it('validates without a key; a paid command without a key is a usage error', async () => {
    const validate = await cli(['validate', 'Example.COM']);
    expect(validate.code).toBe(0);
    expect(JSON.parse(validate.stdout)).toMatchObject({ valid: true });
    const noKey = await cli(['expiry', 'example.com']);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/X402_PRIVATE_KEY/);
  });
});
