/**
 * One paid call as an agent makes it, with the official clients: `@x402/fetch` over HTTP, the MCP SDK
 * client with the x402 payment in `_meta` over MCP (`mcp`: the 1.x client, MCP 2025-11-25;
 * `mcp-2026`: the 2.x client pinned to MCP 2026-07-28). Each reports whether the check's result was
 * delivered, what it got instead, and everything it saw (headers with the x402 ones decoded, bodies)
 * so tests can scan it for leaks. A call can be retried with the same authorization.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import { clientFor, payingFetchFor } from './payer-client.ts';

export type Transport = 'http' | 'mcp' | 'mcp-2026';

/** What the client ended up with. */
export interface PaidAnswer {
  /** The check's result reached the client: HTTP 200 with the JSON result, or an MCP result without isError. */
  delivered: boolean;
  /** The client gave up (aborted) before it had an answer. */
  aborted: boolean;
  /** HTTP status; for MCP 200 for a result, else null (a tool result has no status); null when aborted. */
  status: number | null;
  /** The problem `code`, or for a payment challenge `payment_required:<reason>`; null for a result. */
  code: string | null;
  /** Every header and body the client saw, x402 headers decoded: for leak scans. */
  seen: string;
}

export interface PaidCall {
  answer: PaidAnswer;
  /** The same authorization sent again (as a client does after losing the answer). */
  retry(): Promise<PaidAnswer>;
}

export interface PaidCallOptions {
  transport: Transport;
  /** The service, e.g. `http://127.0.0.1:41234`. */
  baseUrl: URL;
  /** Paid operation: HTTP route and MCP tool. */
  route: string;
  tool: string;
  domain: string;
  payer: PrivateKeyAccount;
  signal?: AbortSignal;
  /** Sent on every request of the call and of its retries. */
  headers?: Record<string, string>;
}

/** Above the service's own bound for a paid answer (a 12 s check plus a settlement of at most 50 s). */
const MCP_REQUEST_TIMEOUT_MS = 65_000;

export function payFor(options: PaidCallOptions): Promise<PaidCall> {
  return options.transport === 'http' ? payOverHttp(options) : payOverMcp(options, options.transport);
}

function decodeBase64Json(value: string): string {
  try {
    return Buffer.from(value, 'base64').toString('utf8');
  } catch {
    return '';
  }
}

/** Headers and body as one text; PAYMENT-RESPONSE and PAYMENT-REQUIRED are also decoded. */
function seenText(headers: Headers, body: string): string {
  const lines = [...headers].map(([name, value]) => `${name}: ${value}`);
  for (const name of ['payment-response', 'payment-required']) {
    const value = headers.get(name);
    if (value) lines.push(`${name} (decoded): ${decodeBase64Json(value)}`);
  }
  return `${lines.join('\n')}\n\n${body}`;
}

const ABORTED: PaidAnswer = { delivered: false, aborted: true, status: null, code: null, seen: '' };
/** The client got no usable answer: the connection failed or closed (e.g. the process died), or the client threw. */
export const NO_ANSWER = 'no_answer';

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || /abort/i.test(error.message));
}

/** The answer `send` gets; an abort or an error the client threw (its message is what it saw) is one too. */
async function answerOrFailure(send: () => Promise<PaidAnswer>): Promise<PaidAnswer> {
  try {
    return await send();
  } catch (error) {
    if (isAbort(error)) return ABORTED;
    const seen = error instanceof Error ? error.message : String(error);
    return { delivered: false, aborted: false, status: null, code: NO_ANSWER, seen };
  }
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function codeOf(body: Record<string, unknown> | null): string | null {
  if (!body) return null;
  if (typeof body.code === 'string') return body.code;
  if (body.x402Version !== undefined) return `payment_required:${String(body.error ?? '')}`;
  return null;
}

async function payOverHttp(options: PaidCallOptions): Promise<PaidCall> {
  const url = new URL(`${options.route}?domain=${options.domain}`, options.baseUrl);
  let signature: string | null = null;
  const recording: typeof fetch = (input, init) => {
    signature = new Request(input, init).headers.get('payment-signature') ?? signature;
    return fetch(input, init);
  };
  const read = async (res: Response): Promise<PaidAnswer> => {
    const text = await res.text();
    const body = parseJsonObject(text);
    const isJson = res.headers.get('content-type')?.startsWith('application/json') ?? false;
    const delivered = res.status === 200 && isJson && body?.domain === options.domain;
    let code = codeOf(body);
    if (res.status === 402 && code === 'payment_required')
      code = `payment_required:${String(body?.reason ?? '')}`;
    return { delivered, aborted: false, status: res.status, code, seen: seenText(res.headers, text) };
  };
  const attempt = (send: () => Promise<Response>) => answerOrFailure(async () => read(await send()));

  const headers = options.headers ?? {};
  const answer = await attempt(() =>
    payingFetchFor(options.payer, recording)(url, { signal: options.signal, headers }),
  );
  return {
    answer,
    retry: () =>
      attempt(() => {
        if (!signature) throw new Error('no PAYMENT-SIGNATURE was sent: nothing to retry');
        return fetch(url, { headers: { ...headers, 'payment-signature': signature } });
      }),
  };
}

/** One `tools/call` on a fresh connection of the official client `transport` names. */
async function callOnce(
  transport: 'mcp' | 'mcp-2026',
  url: URL,
  transportOptions: { fetch: typeof fetch; requestInit: RequestInit },
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  options: { timeout: number; signal?: AbortSignal },
): Promise<CallToolResult> {
  if (transport === 'mcp') {
    const client = new Client({ name: 'charged-iff-delivered', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, transportOptions));
    try {
      return (await client.callTool(params, undefined, options)) as CallToolResult;
    } finally {
      await client.close();
    }
  }
  const client = new ClientV2(
    { name: 'charged-iff-delivered', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(url, transportOptions));
  try {
    return (await client.callTool(params, options)) as CallToolResult;
  } finally {
    await client.close();
  }
}

async function payOverMcp(options: PaidCallOptions, transport: 'mcp' | 'mcp-2026'): Promise<PaidCall> {
  const seen: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const copy = res.clone();
    void copy.text().then(
      (body) => seen.push(seenText(copy.headers, body)),
      () => seen.push(seenText(copy.headers, '')),
    );
    return res;
  };
  const call = (meta?: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> =>
    callOnce(
      transport,
      new URL('/mcp', options.baseUrl),
      { fetch: recording, requestInit: { headers: options.headers ?? {} } },
      { name: options.tool, arguments: { domain: options.domain }, ...(meta ? { _meta: meta } : {}) },
      { timeout: MCP_REQUEST_TIMEOUT_MS, ...(signal ? { signal } : {}) },
    );
  const answerOf = (run: () => Promise<CallToolResult>) =>
    answerOrFailure(async () => {
      const from = seen.length;
      const result = await run();
      // Let the recording copies of this call's responses finish reading.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const body = (result.structuredContent ?? null) as Record<string, unknown> | null;
      const delivered = result.isError !== true && body?.domain === options.domain;
      const status = delivered ? 200 : null;
      const text = [...seen.slice(from), JSON.stringify(result)].join('\n');
      return { delivered, aborted: false, status, code: delivered ? null : codeOf(body), seen: text };
    });

  let payment: PaymentPayload;
  try {
    const unpaid = await call();
    const challenge = unpaid.structuredContent as unknown as PaymentRequired;
    payment = await clientFor(options.payer).createPaymentPayload(challenge);
  } catch (error) {
    const answer = await answerOrFailure(() => Promise.reject(error));
    return { answer, retry: async () => answer };
  }
  const meta = { 'x402/payment': payment };
  const answer = await answerOf(() => call(meta, options.signal));
  return { answer, retry: () => answerOf(() => call(meta)) };
}
