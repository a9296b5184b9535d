/**
 * A typed client for a Website Checks service: one call per check, paid with x402 v2 through the
 * official SDK when the route asks for payment, and never above the caller's spend cap.
 */
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createSIWxClientHook, SIGN_IN_WITH_X } from '@x402/extensions/sign-in-with-x';
import { privateKeyToAccount } from 'viem/accounts';
import { type CommandName, findCommand, watchCommand, type WatchCommandName } from './commands.ts';
import { atomicToUsd, isUsdAmount, usdToAtomic } from './money.ts';

export const DEFAULT_SERVICE_URL = 'http://localhost:8080';
/** Default per-payment cap in USD: above every price, far below the SDK's own $1 default. */
export const DEFAULT_MAX_USD = '0.05';

export interface ClientOptions {
  /** Service base URL; a path prefix is kept (`https://host/checks` calls `https://host/checks/v1/…`). */
  url?: string | URL;
  /**
   * The payer's 0x-prefixed 32-byte hex key: it pays the paid calls, and signs in as the wallet
   * that paid for a watch (x402 `sign-in-with-x`) where a call carries no token.
   */
  privateKey?: `0x${string}`;
  /** Largest payment this client signs, in USD (default `0.05`). */
  maxUsd?: string;
  fetch?: typeof globalThis.fetch;
}

/** The settlement receipt of a paid call (the `PAYMENT-RESPONSE` header). */
export interface Receipt {
  transaction: string;
  network: string;
  payer?: string;
}

export type CheckResult =
  /** 2xx: the result, and the receipt when the call was paid. */
  | { kind: 'ok'; status: number; body: unknown; receipt?: Receipt }
  /**
   * 4xx: refused and not charged (invalid input, payment required or rejected, payment in flight,
   * too many free requests). A refused signed payment names its `reason` and what was signed.
   */
  | { kind: 'refused'; status: number; body: unknown; reason?: string; payment?: SignedPayment }
  /** The price is above `maxUsd`: nothing was signed or sent. */
  | { kind: 'over-cap'; priceUsd: string; maxUsd: string }
  /** 5xx: an upstream or the service failed; a paid call is not settled. */
  | { kind: 'failed'; status: number; body: unknown };

/** A payment this client signed: who pays, how much and where. */
export interface SignedPayment {
  payer: string;
  priceUsd: string;
  network: string;
}

/** The service could not be reached at all (connection refused, unknown host, TLS, …). */
export class ServiceUnreachableError extends Error {
  override name = 'ServiceUnreachableError';
  readonly url: string;
  /** The cause in words, with the system code, e.g. `connection refused (ECONNREFUSED)`. */
  readonly reason: string;
  constructor(url: string, reason: string) {
    super(`Cannot reach the service at ${url}: ${reason}`);
    this.url = url;
    this.reason = reason;
  }
}

/** The 402 could not be paid by this client (no key, or no payment option it supports). */
export class PaymentError extends Error {
  override name = 'PaymentError';
}

/**
 * Every watch call but `watch` and `watchList` takes the watch's `token`; without one (undefined or
 * empty) it signs in as the wallet of `privateKey`, which must be the one that paid for the watch
 * (x402 `sign-in-with-x`: the route's auth-only 402 is answered with a signed `SIGN-IN-WITH-X`
 * header, a fresh challenge per call). Without a token or a key such a call throws `PaymentError`.
 * A wrong token, an unknown id and another wallet's watch are the same `refused` 404.
 */
export interface WebsiteChecksClient {
  readonly url: URL;
  /** Runs one check; throws `ServiceUnreachableError` or `PaymentError`, otherwise resolves. */
  check(command: CommandName, domain: string): Promise<CheckResult>;
  /** Buys a watch of `domain` (201 with its `watch_id`, `token` and `webhook_secret`); throws as `check`. */
  watch(request: WatchRequest): Promise<CheckResult>;
  /** A watch's state, events and deliveries (`since`: only the events after that event id). Free. */
  watchStatus(watchId: string, token?: string, since?: string): Promise<CheckResult>;
  /** Ends a watch now (no refund). Free. */
  watchCancel(watchId: string, token?: string): Promise<CheckResult>;
  /**
   * Moves an active watch's `expires_at` `days` later, keeping its id, token, secret and events:
   * paid at the pro-rata price, never above `maxUsd` (`over-cap` otherwise, nothing signed). With
   * the wallet's sign-in, one proof serves the unpaid request and its paid retry.
   */
  watchExtend(watchId: string, days: number, token?: string): Promise<CheckResult>;
  /**
   * The watches the wallet of `privateKey` paid for, newest first, 20 a page: `{ watches,
   * next_cursor }`; pass `cursor` (a page's `next_cursor`) for the next page. Signs in; free.
   */
  watchList(cursor?: string): Promise<CheckResult>;
  /** A new token for a watch (`{ watch_id, token }`); the old one stops working at once. Free. */
  watchRotateToken(watchId: string, token?: string): Promise<CheckResult>;
  /**
   * A new webhook secret for a watch with a webhook (`{ watch_id, webhook_secret }`; 409
   * `no_webhook` for a pull-only one); `watch.secret_rotated` is signed with the old secret. Free.
   */
  watchRotateSecret(watchId: string, token?: string): Promise<CheckResult>;
}

export interface WatchRequest {
  domain: string;
  /** Default 30 (the service's); at most what one $1.00 payment buys (300 days at the default price). */
  days?: number;
  /** https:// receiver of the signed events; without it the watch is read with `watchStatus`. */
  webhookUrl?: string;
}

interface Call {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The URL of `route` under `base`, keeping the base's path prefix, with `query`. */
export function routeUrl(base: URL, route: string, query: Record<string, string> = {}): URL {
  const prefix = base.pathname.replace(/\/+$/, '');
  const url = new URL(`${prefix}${route}`, base);
  url.search = new URLSearchParams(query).toString();
  return url;
}

/** The route of a watch command (`WATCH_COMMANDS`), with `watchId` in place of `{watch_id}`. */
function watchRoute(name: WatchCommandName, watchId = ''): string {
  return watchCommand(name).route.replace('{watch_id}', encodeURIComponent(watchId));
}

export function createClient(options: ClientOptions = {}): WebsiteChecksClient {
  const url = new URL(options.url ?? DEFAULT_SERVICE_URL);
  if (!/^https?:$/.test(url.protocol)) throw new TypeError(`The service URL must be http(s): ${url.href}`);
  const maxUsd = options.maxUsd ?? DEFAULT_MAX_USD;
  if (!isUsdAmount(maxUsd))
    throw new TypeError(`maxUsd must be a decimal amount in USD, e.g. 0.05: ${maxUsd}`);
  const fetch = options.fetch ?? globalThis.fetch;
  const payer = options.privateKey ? payingClient(options.privateKey, maxUsd) : undefined;

  async function send(target: URL, call: Call = {}): Promise<Response> {
    try {
      return await fetch(target, { ...call, headers: { accept: 'application/json', ...call.headers } });
    } catch (error) {
      throw new ServiceUnreachableError(url.href, describeNetworkError(error));
    }
  }

  /**
   * `call` to `target`: an auth-only 402 (`accepts: []`, the `sign-in-with-x` challenge) is
   * answered with the wallet's sign-in, kept for the rest of the call; a 402 that asks for a
   * payment is paid under the spend cap when `paid`, refused otherwise.
   */
  async function request(name: string, target: URL, call: Call, paid: boolean): Promise<CheckResult> {
    let response = await send(target, call);
    if (response.status !== 402) return classify(response);
    if (!payer) {
      throw new PaymentError(
        paid
          ? `${name} is paid: a payer key is needed.`
          : `${name} needs the watch's token or the sign-in of the wallet that paid for it: a key is needed.`,
      );
    }
    let challenge = payer.http.getPaymentRequiredResponse((header) => response.headers.get(header));
    if (challenge.accepts.length === 0 && challenge.extensions?.[SIGN_IN_WITH_X]) {
      // The official hook signs the challenge for this request's URL (a proof per call).
      const signIn = await payer.http.handlePaymentRequired(challenge, response.url || target.href);
      if (!signIn)
        throw new PaymentError(
          `${name}: could not sign in as ${payer.address} (an EVM sign-in was not offered).`,
        );
      call = { ...call, headers: { ...call.headers, ...signIn } };
      response = await send(target, call);
      if (response.status !== 402) return classify(response);
      challenge = payer.http.getPaymentRequiredResponse((header) => response.headers.get(header));
    }
    if (!paid || challenge.accepts.length === 0) return classify(response);
    return pay(name, target, call, challenge, payer);
  }

  /** Pays `challenge` of `target` under the spend cap: nothing is signed above `maxUsd`. */
  async function pay(
    name: string,
    target: URL,
    call: Call,
    challenge: PaymentRequired,
    payer: Payer,
  ): Promise<CheckResult> {
    const price = cheapestPayable(challenge, name);
    if (price.amount > usdToAtomic(maxUsd))
      return { kind: 'over-cap', priceUsd: atomicToUsd(price.amount), maxUsd };
    let signature: Record<string, string>;
    try {
      signature = payer.http.encodePaymentSignatureHeader(await payer.http.createPaymentPayload(challenge));
    } catch (error) {
      throw new PaymentError(`Could not sign the payment: ${error instanceof Error ? error.message : error}`);
    }
    const paid = await send(target, { ...call, headers: { ...call.headers, ...signature } });
    const result = await classify(paid);
    if (result.kind === 'ok' && paid.headers.has('payment-response')) {
      const {
        transaction,
        network,
        payer: from,
      } = payer.http.getPaymentSettleResponse((h) => paid.headers.get(h));
      return { ...result, receipt: { transaction, network, ...(from ? { payer: from } : {}) } };
    }
    if (result.kind === 'refused' && paid.status === 402) {
      const payment = { payer: payer.address, priceUsd: atomicToUsd(price.amount), network: price.network };
      return { ...result, reason: rejection(payer.http, paid), payment };
    }
    return result;
  }

  /** The watch's token as a Bearer header; none (the wallet signs in) without one. */
  const bearer = (token?: string): Record<string, string> =>
    token ? { authorization: `Bearer ${token}` } : {};
  const json = { 'content-type': 'application/json' };

  /** A call of a watch command to its route (with `watchId`, and `query`). */
  function watchCall(
    name: WatchCommandName,
    {
      watchId,
      query,
      headers = {},
      body,
    }: { watchId?: string; query?: Record<string, string>; headers?: Record<string, string>; body?: string },
  ): Promise<CheckResult> {
    const command = watchCommand(name);
    const target = routeUrl(url, watchRoute(name, watchId), query);
    return request(
      name,
      target,
      { method: command.method, headers, ...(body === undefined ? {} : { body }) },
      command.paid,
    );
  }

  return {
    url,
    async check(name, domain) {
      const command = findCommand(name);
      if (!command) throw new TypeError(`Unknown command: ${name}`);
      const target = routeUrl(url, command.route, { domain });
      return command.paid ? request(command.name, target, {}, true) : classify(await send(target));
    },
    watch({ domain, days, webhookUrl }) {
      const body = JSON.stringify({
        domain,
        ...(days === undefined ? {} : { days }),
        ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
      });
      return watchCall('watch', { headers: json, body });
    },
    watchStatus(watchId, token, since) {
      const query: Record<string, string> = since === undefined ? {} : { since };
      return watchCall('watch-status', { watchId, query, headers: bearer(token) });
    },
    watchCancel(watchId, token) {
      return watchCall('watch-cancel', { watchId, headers: bearer(token) });
    },
    watchExtend(watchId, days, token) {
      const body = JSON.stringify({ days });
      return watchCall('watch-extend', { watchId, headers: { ...json, ...bearer(token) }, body });
    },
    watchList(cursor) {
      return watchCall('watch-list', { query: cursor === undefined ? {} : { cursor } });
    },
    watchRotateToken(watchId, token) {
      return watchCall('watch-rotate-token', { watchId, headers: bearer(token) });
    },
    watchRotateSecret(watchId, token) {
      return watchCall('watch-rotate-secret', { watchId, headers: bearer(token) });
    },
  };
}

/** The payer's x402 client (paying within the cap, and signing in with the official hook) and address. */
interface Payer {
  http: x402HTTPClient;
  address: string;
}

function payingClient(privateKey: `0x${string}`, maxUsd: string): Payer {
  const account = privateKeyToAccount(privateKey);
  const client = x402Client.fromConfig({
    // Every EVM chain: the service's 402 names the one to pay on (eip155:8453 in production).
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
    spendControls: { maxAmountPerPayment: `$${maxUsd}` },
  });
  // An auth-only 402 (a management route without a token) is answered with the wallet's sign-in.
  const http = new x402HTTPClient(client).onPaymentRequired(createSIWxClientHook(account));
  return { http, address: account.address };
}

/** The cheapest option this client can sign (exact scheme, EVM): its amount in atomic units. */
function cheapestPayable(challenge: PaymentRequired, name: string): { amount: bigint; network: string } {
  const payable = challenge.accepts.filter(
    (option: PaymentRequirements) => option.scheme === 'exact' && option.network.startsWith('eip155:'),
  );
  if (payable.length === 0) {
    const offered = challenge.accepts.map((option) => `${option.scheme} on ${option.network}`).join(', ');
    throw new PaymentError(`${name} asks for a payment this client cannot make (${offered || 'none'}).`);
  }
  return payable
    .map((option) => ({ amount: BigInt(option.amount), network: option.network }))
    .reduce((a, b) => (b.amount < a.amount ? b : a));
}

/** Why a signed payment was refused: the challenge's `error`, or the failed settlement's reason. */
function rejection(client: x402HTTPClient, response: Response): string | undefined {
  const header = (name: string) => response.headers.get(name);
  try {
    if (response.headers.has('payment-response')) return client.getPaymentSettleResponse(header).errorReason;
    return client.getPaymentRequiredResponse(header).error;
  } catch {
    return undefined;
  }
}

async function classify(response: Response): Promise<CheckResult> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (e.g. a proxy's HTML error page): keep the text.
  }
  const status = response.status;
  if (response.ok) return { kind: 'ok', status, body };
  if (status >= 400 && status < 500) return { kind: 'refused', status, body };
  return { kind: 'failed', status, body };
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

/** `fetch failed` → `connection refused (ECONNREFUSED)`: the cause undici hides behind its message. */
export function describeNetworkError(error: unknown): string {
  let current: unknown = error;
  let innermost = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return `${NETWORK_CODES[code] ?? current.message} (${code})`;
    innermost = current.message;
    current = current.cause;
  }
  return innermost;
}
