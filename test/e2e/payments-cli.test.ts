/**
 * The client package's built CLI as a user runs it (under the system Node.js when there is one)
 * against the app on a loopback port and a local chain: it pays, prints the result and the receipt,
 * refuses in one readable line, and exits with the documented code.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunners } from '../../src/runners.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { NO_OP_GATE } from '../../src/http/payment-gate.ts';
import { runCli, SYSTEM_NODE } from '../support/run-command.ts';
import { type PaidService, startPaidService } from '../world/paid-service.ts';

const FUNDS = 1_000_000n; // 1 USDC, in atomic units

let service: PaidService;

beforeAll(async () => {
  service = await startPaidService();
});
afterAll(async () => {
  await service?.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--url', service.url.href], env);

async function listen(server: Server): Promise<URL> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

async function close(server: { close(callback: () => void): unknown }): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe(`website-checks-cli (built, on ${SYSTEM_NODE})`, () => {
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

  it('refuses to pay above --max-usd, naming the price: exit 2, nothing charged or run', async () => {
    const payer = await service.newPayer(FUNDS);
    const runs0 = service.runs();
    const run = await cli(['site-health', 'example.com', '--max-usd', '0.02'], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'site-health costs $0.03, above --max-usd 0.02: nothing was paid. Pass --max-usd 0.03 or more to pay it.\n',
    );
    expect(run.stdout).toBe('');
    expect(service.runs()).toBe(runs0);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
  });

  it('exits 2 on an invalid domain and 3 on an upstream failure, charging nothing', async () => {
    const payer = await service.newPayer(FUNDS);
    const env = { X402_PRIVATE_KEY: payer.privateKey };
    const invalid = await cli(['dns', 'exa_mple..com'], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^HTTP 400 invalid_domain: /);
    service.upstream.failing = true;
    try {
      const failed = await cli(['dns', 'example.com'], env);
      expect(failed.code).toBe(3);
      expect(failed.stderr).toMatch(/^HTTP 502 upstream_failed: [\s\S]*"upstreams"/);
      expect(failed.stderr).not.toContain('npm run world'); // an HTTP status failure is not "offline"
    } finally {
      service.upstream.failing = false;
    }
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
  });

  it('validates without a key (exit 0, or 2 for an invalid domain); a paid command without a key is a usage error', async () => {
    const valid = await cli(['validate', 'Example.COM']);
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true });
    const invalid = await cli(['validate', 'exa_mple..com']);
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ valid: false });
    expect(invalid.stderr).toMatch(/^Not a valid domain: exa_mple\.\.com \([a-z_]+\): [A-Z].*\.\n$/);
    expect(invalid.stderr).not.toContain('[object Object]');
    const noKey = await cli(['expiry', 'example.com']);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/^expiry is paid: set X402_PRIVATE_KEY/);
  });

  it('a payer without enough USDC: one line naming the payer and what is needed, exit 2', async () => {
    const payer = await service.newPayer(0n);
    const run = await cli(['cert', 'example.com'], { X402_PRIVATE_KEY: payer.privateKey });
    expect(run.code).toBe(2);
    const [line, ...rest] = run.stderr.split('\n');
    expect(line).toBe(
      `Payment refused: payer ${payer.address} holds too little USDC: 0.01 needed for cert on eip155:8453. Nothing was charged; send USDC to the payer and run again.`,
    );
    expect(rest.join('\n')).toContain('"reason": "invalid_exact_evm_insufficient_balance"');
    expect(run.stderr).not.toMatch(/sign a new authorization/i);
    expect(run.stdout).toBe('');
  });

  it('a malformed X402_PRIVATE_KEY is named malformed, not missing, and never echoed', async () => {
    const run = await cli(['cert', 'example.com'], { X402_PRIVATE_KEY: '0x1234' });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "X402_PRIVATE_KEY is malformed (6 characters): it must be 0x followed by 64 hex digits, the payer's 32-byte key.\n",
    });
  });

  it('a 429 is one line with the service’s reason and when to retry: exit 2', async () => {
    const { url, server } = await serveUnpaid({ RATE_LIMIT_BURST: '1', RATE_LIMIT_PER_MINUTE: '1' });
    try {
      expect((await runCli(['validate', 'example.com', '--url', url])).code).toBe(0);
      const limited = await runCli(['validate', 'example.com', '--url', url]);
      expect(limited.code).toBe(2);
      expect(limited.stderr.split('\n')[0]).toMatch(
        /^HTTP 429 rate_limited: Free requests from one address are limited to 1 at once and 1 a minute; retry in \d+ s\. Paid requests are not limited\.$/,
      );
    } finally {
      await close(server);
    }
  });

  it('answers --help, -h, help and --version with exit 0 and no request', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const help = await runCli(args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: website-checks-cli <command> <domain>/);
    }
    const version = await runCli(['--version']);
    expect(version).toEqual({ code: 0, stdout: '1.0.0\n', stderr: '' });
    const wrong = await runCli(['cert', 'a.com', '--verbose']);
    expect(wrong).toMatchObject({
      code: 1,
      stderr: 'Unknown option: --verbose.\nRun website-checks-cli --help for usage.\n',
    });
  });

  it('keeps the path prefix of --url', async () => {
    const paths: string[] = [];
    const prefixed = createServer((req, res) => {
      paths.push(req.url ?? '');
      const ok = req.url?.startsWith('/checks/v1/validate?');
      res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { valid: true } : { code: 'not_found' }));
    });
    const base = await listen(prefixed);
    try {
      const run = await runCli(['validate', 'example.com', '--url', `${base.href}checks/`]);
      expect(run.code).toBe(0);
      expect(paths).toEqual(['/checks/v1/validate?domain=example.com']);
    } finally {
      await close(prefixed);
    }
  });

  it('names the URL and the cause when the service is unreachable: exit 3', async () => {
    const port = await freePort();
    const run = await runCli(['validate', 'example.com', '--url', `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      new RegExp(
        `^Cannot reach the service at http://127\\.0\\.0\\.1:${port}/: connection refused \\(ECONNREFUSED\\)\\.\n`,
      ),
    );
  });

  it('on a local service whose upstreams are unreachable (offline), points at npm run world', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    // No payment gate: this case is about the upstreams, not about paying.
    const { url, server } = await serveUnpaid({
      DOH_URL: `${nowhere}/dns-query`,
      DOH_FALLBACK_URL: `${nowhere}/dns-query`,
    });
    try {
      const run = await runCli(['dns', 'example.com', '--url', url], {
        X402_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
      });
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/^HTTP 502 upstream_failed: /);
      expect(run.stderr).toMatch(/"error": "network"/);
      expect(run.stderr).toContain('is this machine offline?');
      expect(run.stderr).toContain('`npm run world`');
    } finally {
      await close(server);
    }
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  const { port } = await listen(probe);
  await close(probe);
  return Number(port);
}

/** The app without a payment gate, configured by `env`, with its real runners, on loopback. */
async function serveUnpaid(env: Record<string, string>) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const runners = createRunners(config, {
    fetch: globalThis.fetch,
    now: () => new Date(),
    reach: nodeReach(),
  });
  const app = createApp({ payments: NO_OP_GATE, config, runners, logger: pino({ level: 'silent' }) });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
