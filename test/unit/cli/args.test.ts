/** Command-line parsing of the paying CLI. */
import { describe, expect, it } from 'vitest';
import { COMMANDS, DEFAULT_MAX_USD, parseCliArgs } from '../../../src/cli/args.ts';

describe('parseCliArgs', () => {
  it('offers the four paid checks and the free validate, from the catalog', () => {
    expect(COMMANDS.map((c) => [c.name, c.paid])).toEqual([
      ['cert', true],
      ['dns', true],
      ['expiry', true],
      ['site-health', true],
      ['validate', false],
    ]);
  });

  it('applies the defaults', () => {
    expect(parseCliArgs(['dns', 'example.com'])).toMatchObject({
      command: { route: '/v1/dns', paid: true },
      domain: 'example.com',
      url: new URL('http://localhost:8080'),
      maxUsd: DEFAULT_MAX_USD,
    });
  });

  it('reads --url and --max-usd in any position', () => {
    expect(
      parseCliArgs(['--max-usd', '0.03', 'site-health', 'example.org', '--url', 'http://127.0.0.1:9/']),
    ).toMatchObject({
      command: { name: 'site-health' },
      domain: 'example.org',
      url: new URL('http://127.0.0.1:9/'),
      maxUsd: '0.03',
    });
  });

  it.each([
    [[], /Missing command/],
    [['whois', 'example.com'], /Unknown command: whois/],
    [['cert'], /Missing domain/],
    [['cert', 'a.com', 'b.com'], /Unexpected argument: b.com/],
    [['cert', 'a.com', '--max-usd', '-1'], /--max-usd/],
    [['cert', 'a.com', '--max-usd', '0.0000001'], /--max-usd/],
    [['cert', 'a.com', '--url', 'ftp://x'], /--url/],
    [['cert', 'a.com', '--verbose'], /Unknown option/],
  ])('refuses %j', (argv, message) => {
    expect(parseCliArgs(argv)).toMatch(message);
  });
});
