/** Command-line parsing of the client package's CLI, and its commands against the service catalog. */
import { describe, expect, it } from 'vitest';
import { parseCliArgs, USAGE } from '../../../packages/client/src/args.ts';
import { DEFAULT_MAX_USD } from '../../../packages/client/src/client.ts';
import { COMMANDS, WATCH_COMMANDS } from '../../../packages/client/src/commands.ts';
import { usdToAtomic } from '../../../packages/client/src/money.ts';
import {
  DEFAULT_PRICE_PER_30_DAYS_USD,
  freeOperations,
  isPaidWatchOperation,
  paidOperations,
  watchOperations,
} from '../../../src/catalog.ts';
import { watchPriceAtomic } from '../../../src/watches/pricing.ts';

describe('parseCliArgs', () => {
  it('offers exactly the catalog HTTP routes: four paid checks and the free validate', () => {
    const catalog = [
      ...paidOperations.map((op) => [op.route, true]),
      ...freeOperations.flatMap((op) => (op.route ? [[op.route, false]] : [])),
    ];
    expect(COMMANDS.map((c) => [c.route, c.paid])).toEqual(catalog);
    expect(COMMANDS.map((c) => c.name)).toEqual(COMMANDS.map((c) => c.route.slice('/v1/'.length)));
  });

  it('applies the defaults', () => {
    expect(parseCliArgs(['dns', 'example.com'])).toMatchObject({
      kind: 'check',
      command: { route: '/v1/dns', paid: true },
      domain: 'example.com',
      url: new URL('http://localhost:8080'),
      maxUsd: DEFAULT_MAX_USD,
    });
  });

  it('reads --url and --max-usd in any position', () => {
    expect(
      parseCliArgs(['--max-usd', '0.03', 'site-health', 'example.org', '--url', 'http://127.0.0.1:9/checks']),
    ).toMatchObject({
      command: { name: 'site-health' },
      domain: 'example.org',
      url: new URL('http://127.0.0.1:9/checks'),
      maxUsd: '0.03',
    });
  });

  it.each([[['--help']], [['-h']], [['help']], [['cert', 'a.com', '--help']], [['help', 'cert']]])(
    'asks for help with %j',
    (argv) => {
      expect(parseCliArgs(argv)).toEqual({ kind: 'help' });
    },
  );

  it.each([[['--version']], [['-v']]])('asks for the version with %j', (argv) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'version' });
  });

  it('documents every command, option and exit code in the help', () => {
    for (const command of COMMANDS) expect(USAGE).toContain(`  ${command.name} `);
    for (const option of ['--url', '--max-usd', '--help', '--version', 'X402_PRIVATE_KEY'])
      expect(USAGE).toContain(option);
    expect(USAGE).toMatch(/0 {2}ok[\s\S]*1 {2}usage[\s\S]*2 {2}refused[\s\S]*3 {2}upstream/);
  });

  it.each([
    [[], 'Missing command.'],
    [['whois', 'example.com'], 'Unknown command: whois.'],
    [['cert'], 'Missing domain: website-checks-cli cert <domain>.'],
    [['cert', 'a.com', 'b.com'], 'Unexpected argument: b.com.'],
    [['cert', 'a.com', '--max-usd', '-1'], '--max-usd needs a value.'],
    [['cert', 'a.com', '--max-usd', '1e3'], '--max-usd must be a decimal amount in USD, e.g. 0.05: 1e3'],
    [
      ['cert', 'a.com', '--max-usd', '0.0000001'],
      '--max-usd must be a decimal amount in USD, e.g. 0.05: 0.0000001',
    ],
    [
      ['cert', 'a.com', '--url', 'ftp://x'],
      '--url must be an http(s) URL, e.g. https://checks.example.com: ftp://x',
    ],
    [['cert', 'a.com', '--url'], '--url needs a value.'],
    [['cert', 'a.com', '--verbose'], 'Unknown option: --verbose.'],
    [['cert', 'a.com', '--help=yes'], '--help takes no value.'],
  ])('refuses %j in one plain sentence', (argv, message) => {
    expect(parseCliArgs(argv)).toBe(message);
  });
});

describe('parseCliArgs: the watch commands', () => {
  it('offers exactly the catalog watch operations, buying and extending paid and the others free', () => {
    expect(WATCH_COMMANDS.map((c) => [c.method, c.route, c.paid])).toEqual(
      watchOperations.map((op) => [
        op.method,
        op.route.replace(':watch_id', '{watch_id}'),
        isPaidWatchOperation(op),
      ]),
    );
    // Each command is named after its operation: `watch-` and the operation's last word(s).
    expect(WATCH_COMMANDS.map((c) => c.name)).toEqual(
      watchOperations.map((op) =>
        op.id === 'v1_watch_create' ? 'watch' : op.id.slice('v1_'.length).replaceAll('_', '-'),
      ),
    );
    for (const command of WATCH_COMMANDS) expect(USAGE).toContain(`  ${command.name} `);
    for (const option of ['--days', '--webhook', '--since', '--cursor', 'WATCH_TOKEN', 'sign-in-with-x'])
      expect(USAGE).toContain(option);
  });

  it('reads the management commands: a watch_id each, watch-list none, with its --cursor', () => {
    for (const name of ['watch-cancel', 'watch-rotate-token', 'watch-rotate-secret'])
      expect(parseCliArgs([name, 'wat_1', '--url', 'http://127.0.0.1:9/'])).toMatchObject({
        kind: 'watch',
        command: { name, paid: false },
        target: 'wat_1',
        url: new URL('http://127.0.0.1:9/'),
      });
    expect(parseCliArgs(['watch-list'])).toMatchObject({
      kind: 'watch',
      command: { name: 'watch-list', method: 'GET', route: '/v1/watches', paid: false },
      target: '',
    });
    expect(parseCliArgs(['watch-list', '--cursor', 'c_2'])).toMatchObject({ cursor: 'c_2' });
    expect(parseCliArgs(['watch-list'])).not.toHaveProperty('cursor');
  });

  it.each([1, 3, 29, 30, 90, 300])(
    'reads watch-extend --days %i, capped by default at the published price of those days',
    (days) => {
      const request = parseCliArgs(['watch-extend', 'wat_1', '--days', String(days)]);
      expect(request).toMatchObject({
        kind: 'watch',
        command: { name: 'watch-extend', method: 'POST', route: '/v1/watches/{watch_id}/extend', paid: true },
        target: 'wat_1',
        days,
      });
      const { maxUsd } = request as { maxUsd: string };
      expect(usdToAtomic(maxUsd).toString()).toBe(watchPriceAtomic(DEFAULT_PRICE_PER_30_DAYS_USD, days));
    },
  );

  it('keeps an explicit --max-usd as the cap of watch-extend', () => {
    expect(parseCliArgs(['watch-extend', 'wat_1', '--days', '30', '--max-usd', '0.05'])).toMatchObject({
      maxUsd: '0.05',
    });
  });

  it('reads a watch with its days and webhook, and a status with since', () => {
    expect(
      parseCliArgs(['watch', 'example.com', '--days', '365', '--webhook', 'https://hooks.example.net/w']),
    ).toMatchObject({
      kind: 'watch',
      command: { name: 'watch', paid: true },
      target: 'example.com',
      days: 365,
      webhookUrl: 'https://hooks.example.net/w',
      maxUsd: '1.216667',
    });
    expect(parseCliArgs(['watch-status', 'wat_1', '--since', 'evt_1'])).toMatchObject({
      kind: 'watch',
      command: { name: 'watch-status', paid: false },
      target: 'wat_1',
      since: 'evt_1',
    });
  });

  it.each([1, 2, 7, 29, 30, 31, 90, 364, 365])(
    'caps a %i-day watch by default at its published price, as the service computes it',
    (days) => {
      const request = parseCliArgs(['watch', 'example.com', '--days', String(days)]);
      const { maxUsd } = request as { maxUsd: string };
      expect(usdToAtomic(maxUsd).toString()).toBe(watchPriceAtomic(DEFAULT_PRICE_PER_30_DAYS_USD, days));
    },
  );

  it('caps a watch of the default days at their price, and keeps an explicit --max-usd as the cap', () => {
    expect(parseCliArgs(['watch', 'example.com'])).toMatchObject({ maxUsd: '0.10' });
    expect(parseCliArgs(['watch', 'example.com', '--days', '30', '--max-usd', '0.05'])).toMatchObject({
      maxUsd: '0.05',
    });
    expect(parseCliArgs(['watch', 'example.com', '--max-usd', '2'])).toMatchObject({ maxUsd: '2' });
    expect(USAGE).toContain('0.10 for 30');
  });

  it.each([
    [['watch'], 'Missing domain: website-checks-cli watch <domain>.'],
    [['watch-cancel'], 'Missing watch_id: website-checks-cli watch-cancel <watch_id>.'],
    [['watch', 'a.com', '--days', '0'], '--days must be a whole number of days from 1 to 365: 0'],
    [['watch', 'a.com', '--days', '366'], '--days must be a whole number of days from 1 to 365: 366'],
    [['watch', 'a.com', '--days', '2.5'], '--days must be a whole number of days from 1 to 365: 2.5'],
    [['watch', 'a.com', '--days', '1e2'], '--days must be a whole number of days from 1 to 365: 1e2'],
    [
      ['watch', 'a.com', '--webhook', 'ftp://x.example'],
      '--webhook must be an https:// URL: ftp://x.example',
    ],
    [['watch', 'a.com', '--since', 'evt_1'], '--since is not an option of watch.'],
    [['watch-cancel', 'wat_1', '--days', '3'], '--days is not an option of watch-cancel.'],
    [['cert', 'a.com', '--days', '3'], '--days is for the watch commands only.'],
    [['watch-status', 'wat_1', 'extra'], 'Unexpected argument: extra.'],
    [['watch-extend', 'wat_1'], 'Missing --days: website-checks-cli watch-extend <watch_id> --days <n>.'],
    [['watch-extend', '--days', '3'], 'Missing watch_id: website-checks-cli watch-extend <watch_id>.'],
    [['watch-extend', 'wat_1', '--days', '0'], '--days must be a whole number of days from 1 to 365: 0'],
    [
      ['watch-extend', 'wat_1', '--days', '3', '--webhook', 'https://h.example'],
      '--webhook is not an option of watch-extend.',
    ],
    [['watch-list', 'wat_1'], 'Unexpected argument: wat_1.'],
    [['watch-list', '--since', 'evt_1'], '--since is not an option of watch-list.'],
    [['watch-list', '--cursor'], '--cursor needs a value.'],
    [['watch-status', 'wat_1', '--cursor', 'c_2'], '--cursor is not an option of watch-status.'],
    [['watch-rotate-token'], 'Missing watch_id: website-checks-cli watch-rotate-token <watch_id>.'],
    [['watch-rotate-secret', 'wat_1', '--days', '3'], '--days is not an option of watch-rotate-secret.'],
    [['cert', 'a.com', '--cursor', 'c_2'], '--cursor is for the watch commands only.'],
  ])('refuses %j', (argv, message) => {
    expect(parseCliArgs(argv)).toBe(message);
  });
});
