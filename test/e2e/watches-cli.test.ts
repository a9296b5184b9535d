/**
 * The client package's built CLI buys, reads and cancels a watch as a user runs it: the paid POST
 * with the x402 key, within --max-usd; the free management calls with the token from WATCH_TOKEN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchPriceAtomic } from '../../src/watches/pricing.ts';
import { runCli } from '../support/run-command.ts';
import { startWatchService, type WatchService } from '../world/watch-service.ts';

const FUNDS = 10_000_000n;

let service: WatchService;

beforeAll(async () => {
  service = await startWatchService();
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--url', service.url.href], env);

describe('website-checks-cli watch, watch-status, watch-cancel', () => {
  it('buys a 30-day watch within its default cap (its own price), reads it with its token and cancels it', async () => {
    const payer = await service.newPayer(FUNDS);
    const bought = await cli(['watch', 'Bücher.example.com', '--days', '30'], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(bought.stderr).toMatch(/^Paid watch: transaction 0x[0-9a-f]{64} /);
    expect(bought.code).toBe(0);
    const watch = JSON.parse(bought.stdout) as { watch_id: string; token: string; domain: string };
    expect(watch).toMatchObject({ domain: 'xn--bcher-kva.example.com', days: 30, status: 'active' });
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 30)));

    const status = await cli(['watch-status', watch.watch_id], { WATCH_TOKEN: watch.token });
    expect(status.code).toBe(0);
    const read = JSON.parse(status.stdout) as { status: string; events: { id: string; type: string }[] };
    expect(read.status).toBe('active');
    const created = read.events.find((event) => event.type === 'watch.created');
    expect(created).toBeDefined();
    const later = await cli(['watch-status', watch.watch_id, '--since', created?.id ?? ''], {
      WATCH_TOKEN: watch.token,
    });
    expect((JSON.parse(later.stdout) as { events: unknown[] }).events).not.toContainEqual(created);

    const wrong = await cli(['watch-status', watch.watch_id], { WATCH_TOKEN: `${watch.token}x` });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.split('\n')[0]).toMatch(/^HTTP 404 not_found/);

    const cancelled = await cli(['watch-cancel', watch.watch_id], { WATCH_TOKEN: watch.token });
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ watch_id: watch.watch_id, status: 'cancelled' });
  });

  it('buys the longest watch one payment buys (300 days, $1.00) within its default cap, charged its pro-rata price', async () => {
    const payer = await service.newPayer(FUNDS);
    const bought = await cli(['watch', 'example.com', '--days', '300'], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(bought.code, bought.stderr).toBe(0);
    expect(JSON.parse(bought.stdout)).toMatchObject({ days: 300, status: 'active' });
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 300)));
    // One day more is refused before any payment, saying how to watch longer.
    const longer = await cli(['watch', 'example.com', '--days', '301'], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(longer.code).toBe(2);
    expect(longer.stderr.split('\n')[0]).toMatch(/^HTTP 400 invalid_days: .*extend the watch/);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 300)));
  });

  it('refuses to pay above an explicit --max-usd before signing, naming the price: exit 2, nothing charged', async () => {
    const payer = await service.newPayer(FUNDS);
    const run = await cli(['watch', 'example.com', '--max-usd', '0.05'], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('watch costs $0.10, above --max-usd 0.05: nothing was paid.');
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
  });

  it('refuses an invalid webhook before any payment: exit 2, nothing charged', async () => {
    const payer = await service.newPayer(FUNDS);
    const run = await cli(
      ['watch', 'example.com', '--webhook', 'https://169.254.169.254/x', '--max-usd', '1'],
      {
        X402_PRIVATE_KEY: payer.privateKey,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toMatch(/^HTTP 400 invalid_webhook_url/);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
  });

  it('needs WATCH_TOKEN for the management commands and the key for watch: usage errors, no request', async () => {
    const status = await cli(['watch-status', 'wat_x']);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('set WATCH_TOKEN');
    const bought = await cli(['watch', 'example.com']);
    expect(bought.code).toBe(1);
    expect(bought.stderr).toContain('watch is paid: set X402_PRIVATE_KEY');
  });
});
