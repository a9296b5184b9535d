/**
 * The paying CLI: calls one route of a Website Checks service, paying paid routes with x402 v2 through
 * the official `@x402/fetch` client (capped by `--max-usd`). The result goes to stdout, the
 * settlement receipt and every refusal to stderr; the exit code says which (see `EXIT`).
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { type CliRequest, EXIT, parseCliArgs, USAGE } from './args.ts';

type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

export interface CliDeps {
  env: Record<string, string | undefined>;
  fetch: FetchLike;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Every EVM chain: the service's 402 names the one to pay on (eip155:8453 in production). */
const EVM_NETWORKS = 'eip155:*';

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[], deps: CliDeps): Promise<number> {
  const request = parseCliArgs(argv);
  if (typeof request === 'string') {
    deps.stderr(`${request}\n${USAGE}\n`);
    return EXIT.usage;
  }
  let fetchFor: FetchLike = deps.fetch;
  if (request.command.paid) {
    const key = deps.env.X402_PRIVATE_KEY?.trim();
    if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
      deps.stderr(`X402_PRIVATE_KEY must hold the payer's 0x-prefixed 32-byte hex private key.\n${USAGE}\n`);
      return EXIT.usage;
    }
    fetchFor = payingFetch(deps.fetch, key as `0x${string}`, request.maxUsd);
  }
  const target = new URL(
    `${request.command.route}?${new URLSearchParams({ domain: request.domain })}`,
    request.url,
  );
  let response: Response;
  try {
    response = await fetchFor(target);
  } catch (error) {
    return reportThrown(error, deps);
  }
  return report(response, request, deps);
}

function payingFetch(fetch: FetchLike, key: `0x${string}`, maxUsd: string): FetchLike {
  const client = x402Client.fromConfig({
    schemes: [{ network: EVM_NETWORKS, client: new ExactEvmScheme(privateKeyToAccount(key)) }],
    spendControls: { maxAmountPerPayment: `$${maxUsd}` },
  });
  return wrapFetchWithPayment(fetch as typeof globalThis.fetch, client);
}

/** A thrown client error: the payment could not be made (e.g. over the cap), or the service is unreachable. */
function reportThrown(error: unknown, deps: CliDeps): number {
  const message = error instanceof Error ? error.message : String(error);
  // @x402/fetch wraps signing failures (spend cap, unsupported network or asset) in this prefix.
  if (message.startsWith('Failed to create payment payload')) {
    deps.stderr(`Payment refused by this client: ${message}\n`);
    return EXIT.refused;
  }
  deps.stderr(`Request failed: ${message}\n`);
  return EXIT.upstream;
}

async function report(response: Response, request: CliRequest, deps: CliDeps): Promise<number> {
  const text = await response.text();
  if (response.ok) {
    deps.stdout(`${pretty(text)}\n`);
    const receipt = response.headers.get('payment-response');
    if (receipt) {
      const { transaction, payer, network } = decodePaymentResponseHeader(receipt);
      deps.stderr(
        `Paid ${request.command.name}: transaction ${transaction} payer ${payer ?? 'unknown'} network ${network}\n`,
      );
    }
    return EXIT.ok;
  }
  deps.stderr(`HTTP ${response.status}\n${pretty(text)}\n`);
  if ([400, 402, 409].includes(response.status)) return EXIT.refused;
  return EXIT.upstream;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
