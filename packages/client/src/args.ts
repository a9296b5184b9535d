/**
 * The command line: `<command> <domain> [--url <base>] [--max-usd <cap>]`, `--help` and
 * `--version`, parsed into a typed request or a one-line usage error.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_USD, DEFAULT_SERVICE_URL } from './client.ts';
import { type Command, COMMANDS, findCommand } from './commands.ts';
import { isUsdAmount } from './money.ts';

export const BIN_NAME = 'website-checks-cli';

/** Exit codes: success, bad usage, refused (nothing charged), upstream failure or service unreachable. */
export const EXIT = { ok: 0, usage: 1, refused: 2, failed: 3 } as const;

export type CliRequest =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'check'; command: Command; domain: string; url: URL; maxUsd: string };

export const USAGE = `Usage: ${BIN_NAME} <command> <domain> [--url <service>] [--max-usd <cap>]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n')}

Options:
  --url <service>   the service's base URL; a path prefix is kept (default ${DEFAULT_SERVICE_URL})
  --max-usd <cap>   never pay more than this per call, in USD (default ${DEFAULT_MAX_USD})
  -h, --help        show this help
  -v, --version     show the version

Paid commands sign an x402 v2 payment (USDC) with the key in X402_PRIVATE_KEY (0x + 64 hex).
The result is printed on stdout as JSON; the receipt and every refusal on stderr.

Exit codes:
  0  ok
  1  usage error
  2  refused, nothing charged: 400 (invalid domain), 402, 409, 429 (too many free
     requests: retry later), a price above --max-usd, or validate of an invalid domain
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
  const command = findCommand(name);
  if (!command) return `Unknown command: ${name}.`;
  if (!domain) return `Missing domain: ${BIN_NAME} ${name} <domain>.`;
  if (extra.length > 0) return `Unexpected argument: ${extra[0]}.`;
  const url = parsed.values.url ?? DEFAULT_SERVICE_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    return `--url must be an http(s) URL, e.g. https://checks.example.com: ${url}`;
  const maxUsd = parsed.values['max-usd'] ?? DEFAULT_MAX_USD;
  if (!isUsdAmount(maxUsd)) return `--max-usd must be a decimal amount in USD, e.g. 0.05: ${maxUsd}`;
  return { kind: 'check', command, domain, url: new URL(url), maxUsd };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      'max-usd': { type: 'string' },
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
