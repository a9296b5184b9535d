/**
 * The command line of `website-checks`: `<command> <domain> [--url <base>] [--max-usd <cap>]`, parsed
 * into a typed request or a usage error. The commands are the catalog's HTTP routes.
 */
import { parseArgs } from 'node:util';
import { freeOperations, paidOperations } from '../catalog.ts';

/** Exit codes: success, bad usage, refused by the service, upstream or service failure. */
export const EXIT = { ok: 0, usage: 1, refused: 2, upstream: 3 } as const;

export const DEFAULT_SERVICE_URL = 'http://localhost:8080';
/** Default per-payment spend cap, in USD: above every price, far below the SDK's own $1 default. */
export const DEFAULT_MAX_USD = '0.05';

/** One command: its route, and whether it is paid. */
export interface CliCommand {
  name: string;
  route: `/v1/${string}`;
  paid: boolean;
}

/** `cert`, `dns`, `expiry`, `site-health` (paid) and `validate` (free), from the catalog routes. */
export const COMMANDS: readonly CliCommand[] = [
  ...paidOperations.map((op) => ({ name: op.route.slice('/v1/'.length), route: op.route, paid: true })),
  ...freeOperations.flatMap((op) =>
    op.route ? [{ name: op.route.slice('/v1/'.length), route: op.route, paid: false }] : [],
  ),
];

export interface CliRequest {
  command: CliCommand;
  domain: string;
  /** Service base URL. */
  url: URL;
  /** Spend cap per payment in USD, as a decimal string. */
  maxUsd: string;
}

export const USAGE = `Usage: website-checks <${COMMANDS.map((c) => c.name).join('|')}> <domain> [--url <service base, default ${DEFAULT_SERVICE_URL}>] [--max-usd <cap, default ${DEFAULT_MAX_USD}>]
Paid commands sign an x402 payment with the key in X402_PRIVATE_KEY; validate is free.
Exit codes: 0 ok, 1 usage, 2 refused (400/402/409), 3 upstream or service failure.`;

/** Parses `argv` (without node and the script); a string is the usage error to print. */
export function parseCliArgs(argv: readonly string[]): CliRequest | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const [name, domain, ...extra] = parsed.positionals;
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return name ? `Unknown command: ${name}` : 'Missing command';
  if (!domain) return 'Missing domain';
  if (extra.length > 0) return `Unexpected argument: ${extra[0]}`;
  const url = parsed.values.url ?? DEFAULT_SERVICE_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    return `--url must be an http(s) URL: ${url}`;
  const maxUsd = parsed.values['max-usd'] ?? DEFAULT_MAX_USD;
  if (!/^\d+(\.\d{1,6})?$/.test(maxUsd))
    return `--max-usd must be a decimal amount in USD, e.g. 0.05: ${maxUsd}`;
  return { command, domain, url: new URL(url), maxUsd };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { url: { type: 'string' }, 'max-usd': { type: 'string' } },
  });
}
