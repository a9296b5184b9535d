/**
 * The command line: `<command> <domain> [--url <base>] [--max-usd <cap>]`, the watch commands
 * (`watch <domain> [--days <n>] [--webhook <url>]`, `watch-status <watch_id> [--since <event_id>]`,
 * `watch-cancel <watch_id>`, `watch-extend <watch_id> --days <n>`, `watch-list [--cursor <c>]`,
 * `watch-rotate-token <watch_id>`, `watch-rotate-secret <watch_id>`), `--help` and `--version`,
 * parsed into a typed request or a one-line usage error.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_USD, DEFAULT_SERVICE_URL } from './client.ts';
import {
  type Command,
  COMMANDS,
  findCommand,
  findWatchCommand,
  WATCH_COMMANDS,
  type WatchCommand,
} from './commands.ts';
import { DEFAULT_DAYS, DEFAULT_PRICE_PER_30_DAYS_USD, proRataAtomic } from '../../../src/watch-price.ts';
import { atomicToUsd, isUsdAmount, usdToAtomic } from './money.ts';

export const BIN_NAME = 'website-checks-cli';

/** Exit codes: success, bad usage, refused (nothing charged), upstream failure or service unreachable. */
export const EXIT = { ok: 0, usage: 1, refused: 2, failed: 3 } as const;

export type CliRequest =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'check'; command: Command; domain: string; url: URL; maxUsd: string }
  | {
      kind: 'watch';
      command: WatchCommand;
      /** The domain of `watch`, the watch_id of the others; empty for `watch-list`. */
      target: string;
      url: URL;
      maxUsd: string;
      days?: number;
      webhookUrl?: string;
      since?: string;
      cursor?: string;
    };

export const USAGE = `Usage: ${BIN_NAME} <command> <domain> [--url <service>] [--max-usd <cap>]
       ${BIN_NAME} watch <domain> [--days <n>] [--webhook <url>] [--url <service>] [--max-usd <cap>]
       ${BIN_NAME} watch-status <watch_id> [--since <event_id>] [--url <service>]
       ${BIN_NAME} watch-cancel <watch_id> [--url <service>]
       ${BIN_NAME} watch-extend <watch_id> --days <n> [--url <service>] [--max-usd <cap>]
       ${BIN_NAME} watch-list [--cursor <c>] [--url <service>]
       ${BIN_NAME} watch-rotate-token <watch_id> [--url <service>]
       ${BIN_NAME} watch-rotate-secret <watch_id> [--url <service>]

Commands:
${commandLines()}

Options:
  --url <service>   the service's base URL; a path prefix is kept (default ${DEFAULT_SERVICE_URL})
  --max-usd <cap>   never pay more than this per call, in USD (default ${DEFAULT_MAX_USD}; for watch and
                    watch-extend, the published price of the days asked, e.g. ${watchPriceUsd(DEFAULT_DAYS)} for ${DEFAULT_DAYS})
  --days <n>        watch: how many days (default 30; the price is pro rata); one payment buys at
                    most $1.00, 300 days at the default price; watch-extend: how many days more (required)
  --webhook <url>   watch: https:// receiver of the signed events (default: read them with watch-status)
  --since <id>      watch-status: only the events after this event id
  --cursor <c>      watch-list: the next page (the next_cursor of the page before)
  -h, --help        show this help
  -v, --version     show the version

Paid commands sign an x402 v2 payment (USDC) with the key in X402_PRIVATE_KEY (0x + 64 hex).
The other watch commands send the watch's token from WATCH_TOKEN (the 201's, or the latest
watch-rotate-token's); without it they sign in as the wallet that paid for the watch, with the key
in X402_PRIVATE_KEY (x402 sign-in-with-x). watch-list always signs in with that key.
The result is printed on stdout as JSON; the receipt and every refusal on stderr.

Exit codes:
  0  ok
  1  usage error
  2  refused, nothing charged: 400 (invalid domain), 401 (sign-in refused), 402, 404
     (no such watch for this token or wallet), 409, 429 (too many free requests: retry
     later), a price above --max-usd, or validate of an invalid domain
  3  upstream failure (5xx, never charged) or the service unreachable

Example:
  X402_PRIVATE_KEY=0x… ${BIN_NAME} site-health example.com --url https://checks.example.com`;

/** Parses `argv` (without node and the script); a string is the usage error to print. */
export function parseCliArgs(argv: readonly string[]): CliRequest | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return parserMessage(error);
  }
  if (parsed.values.help || parsed.positionals[0] === 'help') return { kind: 'help' };
  if (parsed.values.version) return { kind: 'version' };
  const [name, domain, ...extra] = parsed.positionals;
  if (!name) return 'Missing command.';
  const watchCommand = findWatchCommand(name);
  if (watchCommand) return watchRequest(watchCommand, parsed.values, domain, extra);
  const command = findCommand(name);
  if (!command) return `Unknown command: ${name}.`;
  if (!domain) return `Missing domain: ${BIN_NAME} ${name} <domain>.`;
  if (extra.length > 0) return `Unexpected argument: ${extra[0]}.`;
  for (const option of WATCH_ONLY)
    if (parsed.values[option] !== undefined) return `--${option} is for the watch commands only.`;
  const common = commonOptions(parsed.values);
  if (typeof common === 'string') return common;
  return { kind: 'check', command, domain, ...common };
}

type Values = ReturnType<typeof parse>['values'];

/** The help's command list, the names in one column. */
function commandLines(): string {
  const commands = [...COMMANDS, ...WATCH_COMMANDS];
  const width = Math.max(...commands.map((c) => c.name.length));
  return commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
}

/** The published price of `days` of watching, in USD: the default cap of `watch` and `watch-extend`. */
export function watchPriceUsd(days: number): string {
  return atomicToUsd(proRataAtomic(usdToAtomic(DEFAULT_PRICE_PER_30_DAYS_USD), days));
}

/** `--url` and `--max-usd` (`defaultMaxUsd` when not given), checked. */
function commonOptions(
  values: Values,
  defaultMaxUsd = DEFAULT_MAX_USD,
): { url: URL; maxUsd: string } | string {
  const url = values.url ?? DEFAULT_SERVICE_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    return `--url must be an http(s) URL, e.g. https://checks.example.com: ${url}`;
  const maxUsd = values['max-usd'] ?? defaultMaxUsd;
  if (!isUsdAmount(maxUsd)) return `--max-usd must be a decimal amount in USD, e.g. 0.05: ${maxUsd}`;
  return { url: new URL(url), maxUsd };
}

/** The options of the watch commands only. */
const WATCH_ONLY = ['days', 'webhook', 'since', 'cursor'] as const;

/** The options each watch command takes besides `--url` and `--max-usd`. */
const WATCH_OPTIONS: Record<WatchCommand['name'], readonly (typeof WATCH_ONLY)[number][]> = {
  watch: ['days', 'webhook'],
  'watch-status': ['since'],
  'watch-cancel': [],
  'watch-extend': ['days'],
  'watch-list': ['cursor'],
  'watch-rotate-secret': [],
  'watch-rotate-token': [],
};

/** What each watch command names after it: a domain, a watch_id, or nothing. */
const WATCH_TARGET: Record<WatchCommand['name'], 'domain' | 'watch_id' | null> = {
  watch: 'domain',
  'watch-status': 'watch_id',
  'watch-cancel': 'watch_id',
  'watch-extend': 'watch_id',
  'watch-list': null,
  'watch-rotate-secret': 'watch_id',
  'watch-rotate-token': 'watch_id',
};

function watchRequest(
  command: WatchCommand,
  values: Values,
  target: string | undefined,
  extra: string[],
): CliRequest | string {
  const what = WATCH_TARGET[command.name];
  if (what === null && target !== undefined) return `Unexpected argument: ${target}.`;
  if (what !== null && !target) return `Missing ${what}: ${BIN_NAME} ${command.name} <${what}>.`;
  if (extra.length > 0) return `Unexpected argument: ${extra[0]}.`;
  const allowed = WATCH_OPTIONS[command.name];
  for (const option of WATCH_ONLY)
    if (values[option] !== undefined && !allowed.includes(option))
      return `--${option} is not an option of ${command.name}.`;
  if (command.name === 'watch-extend' && values.days === undefined)
    return `Missing --days: ${BIN_NAME} watch-extend <watch_id> --days <n>.`;
  if (values.days !== undefined && (!/^[1-9][0-9]{0,2}$/.test(values.days) || Number(values.days) > 365))
    return `--days must be a whole number of days from 1 to 365: ${values.days}`;
  const days = values.days === undefined ? undefined : Number(values.days);
  // Buying or extending a watch is capped by its own published price unless the payer names a cap.
  const common = commonOptions(values, command.paid ? watchPriceUsd(days ?? DEFAULT_DAYS) : DEFAULT_MAX_USD);
  if (typeof common === 'string') return common;
  const request: CliRequest = { kind: 'watch', command, target: target ?? '', ...common };
  if (days !== undefined) request.days = days;
  if (values.webhook !== undefined) {
    if (!URL.canParse(values.webhook) || !/^https?:$/.test(new URL(values.webhook).protocol))
      return `--webhook must be an https:// URL: ${values.webhook}`;
    request.webhookUrl = values.webhook;
  }
  if (values.since !== undefined) request.since = values.since;
  if (values.cursor !== undefined) request.cursor = values.cursor;
  return request;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      'max-usd': { type: 'string' },
      days: { type: 'string' },
      webhook: { type: 'string' },
      since: { type: 'string' },
      cursor: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

/** Node's parser messages, reworded: `Unknown option '--x'. To specify …` → `Unknown option: --x.` */
function parserMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  // The option as Node quotes it: `--x`, `--url <value>` or `-h, --help`.
  const quoted = /'(-[^']*)'/.exec(message)?.[1] ?? '';
  const option = quoted
    .replace(/ <value>$/, '')
    .split(', ')
    .at(-1);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Unknown option: ${option}.`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return message.includes('does not take') ? `${option} takes no value.` : `${option} needs a value.`;
  return message;
}
