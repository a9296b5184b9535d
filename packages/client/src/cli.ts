/**
 * The command line over the client: the result as JSON on stdout; the receipt, every refusal and
 * every failure on stderr, in one readable line first; the exit code says which (`EXIT`).
 */
import { BIN_NAME, type CliRequest, EXIT, parseCliArgs, USAGE } from './args.ts';
import {
  type CheckResult,
  createClient,
  PaymentError,
  ServiceUnreachableError,
  type WebsiteChecksClient,
} from './client.ts';

export interface CliDeps {
  env: Record<string, string | undefined>;
  fetch: typeof globalThis.fetch;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  version: string;
}

type RunRequest = Extract<CliRequest, { kind: 'check' | 'watch' }>;

const KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[], deps: CliDeps): Promise<number> {
  const request = parseCliArgs(argv);
  if (typeof request === 'string') {
    deps.stderr(`${request}\nRun ${BIN_NAME} --help for usage.\n`);
    return EXIT.usage;
  }
  if (request.kind === 'help') {
    deps.stdout(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (request.kind === 'version') {
    deps.stdout(`${deps.version}\n`);
    return EXIT.ok;
  }
  const key = deps.env.X402_PRIVATE_KEY?.trim();
  const { command } = request;
  // A token on the command line would be in the shell history and the process list: it comes from the environment.
  const token = deps.env.WATCH_TOKEN?.trim() ?? '';
  // The key pays, and signs in as the paying wallet where no token is given (always for watch-list).
  const signsIn =
    request.kind === 'watch' && request.command.name !== 'watch' && (command.name === 'watch-list' || !token);
  if (command.paid && !key) {
    const free =
      request.kind === 'check' ? `The free check needs none: ${BIN_NAME} validate ${request.domain}\n` : '';
    deps.stderr(
      `${command.name} is paid: set X402_PRIVATE_KEY to the payer's key (0x + 64 hex digits).\n${free}`,
    );
    return EXIT.usage;
  }
  if (signsIn && !key) {
    deps.stderr(
      command.name === 'watch-list'
        ? `watch-list signs in as the wallet that paid for the watches: set X402_PRIVATE_KEY to its key (0x + 64 hex digits).\n`
        : `${command.name} needs the watch's token or its paying wallet: set WATCH_TOKEN to the token of its 201, or X402_PRIVATE_KEY to the key of the wallet that paid for it.\n`,
    );
    return EXIT.usage;
  }
  const usesKey = command.paid || signsIn;
  if (usesKey && key && !KEY_PATTERN.test(key)) {
    // The key itself is never echoed: only its shape.
    deps.stderr(
      `X402_PRIVATE_KEY is malformed (${key.length} characters): it must be 0x followed by 64 hex digits, the payer's 32-byte key.\n`,
    );
    return EXIT.usage;
  }
  const client = createClient({
    url: request.url,
    maxUsd: request.maxUsd,
    fetch: deps.fetch,
    ...(usesKey ? { privateKey: key as `0x${string}` } : {}),
  });
  try {
    return report(await call(client, request, token), request, deps);
  } catch (error) {
    if (error instanceof ServiceUnreachableError) {
      deps.stderr(
        `${error.message}.\nIs the service running there? Pass its address with --url (now ${request.url.href}).\n`,
      );
      return EXIT.failed;
    }
    if (error instanceof PaymentError) {
      deps.stderr(`${error.message}\n`);
      return EXIT.refused;
    }
    throw error;
  }
}

function call(client: WebsiteChecksClient, request: RunRequest, token: string): Promise<CheckResult> {
  if (request.kind === 'check') return client.check(request.command.name, request.domain);
  const { target, days, webhookUrl, since, cursor } = request;
  // No token: the client signs in as the wallet of the key.
  const credential = token || undefined;
  switch (request.command.name) {
    case 'watch':
      return client.watch({
        domain: target,
        ...(days === undefined ? {} : { days }),
        ...(webhookUrl === undefined ? {} : { webhookUrl }),
      });
    case 'watch-status':
      return client.watchStatus(target, credential, since);
    case 'watch-cancel':
      return client.watchCancel(target, credential);
    case 'watch-extend':
      // args.ts refuses watch-extend without --days.
      return client.watchExtend(target, days ?? 0, credential);
    case 'watch-list':
      return client.watchList(cursor);
    case 'watch-rotate-secret':
      return client.watchRotateSecret(target, credential);
    case 'watch-rotate-token':
      return client.watchRotateToken(target, credential);
  }
}

function report(result: CheckResult, request: RunRequest, deps: CliDeps): number {
  const name = request.command.name;
  switch (result.kind) {
    case 'ok': {
      deps.stdout(`${json(result.body)}\n`);
      if (result.receipt) {
        const { transaction, payer, network } = result.receipt;
        deps.stderr(
          `Paid ${name}: transaction ${transaction} payer ${payer ?? 'unknown'} network ${network}\n`,
        );
      }
      const verdict = result.body as { valid?: unknown; reason?: { code?: unknown; message?: unknown } };
      if (request.kind === 'check' && name === 'validate' && verdict.valid === false) {
        const { code, message } = verdict.reason ?? {};
        const what = typeof code === 'string' ? ` (${code})` : '';
        const why = typeof message === 'string' ? `: ${message}` : '.';
        deps.stderr(`Not a valid domain: ${request.domain}${what}${why}\n`);
        return EXIT.refused;
      }
      return EXIT.ok;
    }
    case 'over-cap':
      deps.stderr(
        `${name} costs $${result.priceUsd}, above --max-usd ${result.maxUsd}: nothing was paid. ` +
          `Pass --max-usd ${result.priceUsd} or more to pay it.\n`,
      );
      return EXIT.refused;
    case 'refused':
      deps.stderr(`${refusalLine(result, name)}\n${json(result.body)}\n`);
      return EXIT.refused;
    case 'failed':
      deps.stderr(
        `${statusLine(result.status, result.body)}\n${json(result.body)}\n${offlineHint(result.body, request.url)}`,
      );
      return EXIT.failed;
  }
}

/** x402 reasons for a payer whose balance is below the price. */
const INSUFFICIENT_BALANCE = new Set(['invalid_exact_evm_insufficient_balance', 'insufficient_funds']);

/** The one line of a refusal: the payer's balance, or the status with the problem's own sentence. */
function refusalLine(result: Extract<CheckResult, { kind: 'refused' }>, name: string): string {
  const { payment, reason } = result;
  if (payment && reason && INSUFFICIENT_BALANCE.has(reason))
    return `Payment refused: payer ${payment.payer} holds too little USDC: ${payment.priceUsd} needed for ${name} on ${payment.network}. Nothing was charged; send USDC to the payer and run again.`;
  const problem = (typeof result.body === 'object' && result.body !== null ? result.body : {}) as {
    detail?: unknown;
  };
  // The problem's detail names the cause and the fix (and a 402's reason) itself.
  if (typeof problem.detail === 'string') return statusLine(result.status, result.body);
  const why =
    result.status === 402 ? `: payment refused${reason ? ` (${reason})` : ''}, nothing charged` : '';
  return `${statusLine(result.status, result.body)}${why}`;
}

/** `HTTP 400 invalid_domain: <detail>` from a problem body. */
function statusLine(status: number, body: unknown): string {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as {
    code?: unknown;
    detail?: unknown;
  };
  const code = typeof problem.code === 'string' ? ` ${problem.code}` : '';
  const detail = typeof problem.detail === 'string' ? `: ${problem.detail}` : '';
  return `HTTP ${status}${code}${detail}`;
}

/**
 * A service on this machine whose upstreams are unreachable is most likely offline: the closed test
 * world of its repository stands in for the internet.
 */
function offlineHint(body: unknown, url: URL): string {
  const upstreams = (body as { upstreams?: { error?: unknown }[] } | null)?.upstreams ?? [];
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (!local || !upstreams.some((upstream) => upstream.error === 'network')) return '';
  return (
    'The service could not reach its upstreams: is this machine offline? Without internet access, run\n' +
    '`npm run world` in the service folder and start the service with the variables it prints.\n'
  );
}

function json(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body, null, 2);
}
