/**
 * The client package's built CLI buys, reads and cancels a watch as a user runs it: the paid POST
 * with the x402 key, within --max-usd; the free management calls with the token from WATCH_TOKEN;
 * and the whole journey of a watch whose token was forgotten by the paying wallet's sign-in
 * (x402 sign-in-with-x) with the key alone: listed, read, extended, its token rotated, cancelled.
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

  it('needs WATCH_TOKEN or the key for the management commands and the key for watch, watch-extend and watch-list: usage errors, no request', async () => {
    for (const name of ['watch-status', 'watch-cancel', 'watch-rotate-token', 'watch-rotate-secret']) {
      const managed = await cli([name, 'wat_x']);
      expect(managed.code).toBe(1);
      expect(managed.stderr).toContain(
        `${name} needs the watch's token or its paying wallet: set WATCH_TOKEN`,
      );
      expect(managed.stderr).toContain('or X402_PRIVATE_KEY to the key of the wallet that paid for it');
    }
    const bought = await cli(['watch', 'example.com']);
    expect(bought.code).toBe(1);
    expect(bought.stderr).toContain('watch is paid: set X402_PRIVATE_KEY');
    const extended = await cli(['watch-extend', 'wat_x', '--days', '3'], { WATCH_TOKEN: 'wtk_x' });
    expect(extended.code).toBe(1);
    expect(extended.stderr).toContain('watch-extend is paid: set X402_PRIVATE_KEY');
    const listed = await cli(['watch-list'], { WATCH_TOKEN: 'wtk_x' });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(
      'watch-list signs in as the wallet that paid for the watches: set X402_PRIVATE_KEY',
    );
    const malformed = await cli(['watch-list'], { X402_PRIVATE_KEY: '0x12' });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('X402_PRIVATE_KEY is malformed');
  });
});

describe('website-checks-cli by the paying wallet: a watch whose token was forgotten', () => {
  const price = (days: number) => BigInt(watchPriceAtomic('0.10', days));

  it('lists, reads, extends (charged its pro-rata price, refused above --max-usd), rotates the token of and cancels it with the key alone', async () => {
    const [payer, stranger] = await Promise.all([service.newPayer(FUNDS), service.newPayer(0n)]);
    const key = { X402_PRIVATE_KEY: payer.privateKey };
    const bought = await cli(['watch', 'example.com', '--days', '2'], key);
    expect(bought.code, bought.stderr).toBe(0);
    // Only its id and the first token are kept to check them; the CLI is never given the token.
    const { watch_id: watchId, token: firstToken } = JSON.parse(bought.stdout) as {
      watch_id: string;
      token: string;
    };
    let balance = FUNDS - price(2);
    expect(await service.chain.balanceOf(payer.address)).toBe(balance);

    const list = await cli(['watch-list'], key);
    expect(list.code, list.stderr).toBe(0);
    const page = JSON.parse(list.stdout) as { watches: { watch_id: string }[]; next_cursor: unknown };
    expect(page.watches).toHaveLength(1);
    expect(page.watches[0]).toMatchObject({ watch_id: watchId, domain: 'example.com', status: 'active' });
    expect(page.next_cursor).toBeNull();

    const status = await cli(['watch-status', watchId], key);
    expect(status.code, status.stderr).toBe(0);
    const read = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(read).toMatchObject({ watch_id: watchId, status: 'active', days: 2 });
    expect(read).not.toHaveProperty('token');

    // Above an explicit cap: refused before any payment is signed, nothing charged.
    const capped = await cli(['watch-extend', watchId, '--days', '30', '--max-usd', '0.05'], key);
    expect(capped.code).toBe(2);
    expect(capped.stderr).toContain('watch-extend costs $0.10, above --max-usd 0.05: nothing was paid.');
    expect(await service.chain.balanceOf(payer.address)).toBe(balance);

    // Within its default cap (the published price of the days): charged exactly that price.
    const extended = await cli(['watch-extend', watchId, '--days', '3'], key);
    expect(extended.code, extended.stderr).toBe(0);
    expect(extended.stderr).toMatch(/^Paid watch-extend: transaction 0x[0-9a-f]{64} /);
    expect(JSON.parse(extended.stdout)).toMatchObject({ watch_id: watchId, days: 5, status: 'active' });
    balance -= price(3);
    expect(await service.chain.balanceOf(payer.address)).toBe(balance);

    // A new token: the new one manages the watch, the old one is a 404.
    const rotated = await cli(['watch-rotate-token', watchId], key);
    expect(rotated.code, rotated.stderr).toBe(0);
    const { token } = JSON.parse(rotated.stdout) as { token: string };
    expect(token).toMatch(/^wtk_/);
    expect(token).not.toBe(firstToken);
    const byOld = await cli(['watch-status', watchId], { WATCH_TOKEN: firstToken });
    expect(byOld.code).toBe(2);
    expect(byOld.stderr.split('\n')[0]).toMatch(/^HTTP 404 not_found/);
    const byNew = await cli(['watch-status', watchId], { WATCH_TOKEN: token });
    expect(byNew.code, byNew.stderr).toBe(0);

    // With WATCH_TOKEN set, watch-extend authenticates with it and pays with the key.
    const byToken = await cli(['watch-extend', watchId, '--days', '1'], { ...key, WATCH_TOKEN: token });
    expect(byToken.code, byToken.stderr).toBe(0);
    expect(JSON.parse(byToken.stdout)).toMatchObject({ days: 6 });
    balance -= price(1);
    expect(await service.chain.balanceOf(payer.address)).toBe(balance);

    // A pull-only watch has no webhook secret to rotate: refused, by the wallet too.
    const secret = await cli(['watch-rotate-secret', watchId], key);
    expect(secret.code).toBe(2);
    expect(secret.stderr.split('\n')[0]).toMatch(/^HTTP 409 no_webhook/);

    // A second wallet sees none of it.
    const strangers = { X402_PRIVATE_KEY: stranger.privateKey };
    const empty = await cli(['watch-list'], strangers);
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual({ watches: [], next_cursor: null });
    const foreign = await cli(['watch-status', watchId], strangers);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr.split('\n')[0]).toMatch(/^HTTP 404 not_found/);

    const cancelled = await cli(['watch-cancel', watchId], key);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ watch_id: watchId, status: 'cancelled' });
    expect(await service.chain.balanceOf(payer.address)).toBe(balance);
  }, 60_000);
});
