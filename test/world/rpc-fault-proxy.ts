/**
 * A loopback JSON-RPC proxy in front of a node (anvil) that injects the faults a real RPC provider
 * has, per JSON-RPC method and per call: the request never reaches the node, the node executes it but
 * the answer is lost (502, reset connection or JSON-RPC error), or the call hangs for a while or until
 * released. Batches are split and each element is judged on its own. Every call is recorded.
 *
 *   proxy.rule('eth_sendRawTransaction', { respond: 'reset' });             // executed, answer lost
 *   proxy.rule('eth_call', { forward: false });                               // never reaches the node
 *   proxy.rule('eth_getTransactionReceipt', { holdRequest: 'until-released' }); // pending until release()
 *   proxy.rule('*', { holdRequest: 150 });                                    // every method without a rule of its own
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';

/** A hold: a duration in ms, or until `proxy.release()` (or `reset()`). */
export type Hold = number | 'until-released';

/** What the caller gets instead of (or as) the node's answer. */
export type FaultAnswer =
  /** The node's own answer. */
  | 'pass'
  /** HTTP 502 with a text body, as a load balancer in front of a dead node answers. */
  | 'http-502'
  /** The connection is closed without an answer. */
  | 'reset'
  /** HTTP 200 with a JSON-RPC `-32603` internal error for this call. */
  | 'rpc-error';

export interface FaultRule {
  /** 1-based index, among this method's calls since the last `reset()`, of the first faulted call; default 1. */
  from?: number;
  /** How many calls from `from` are faulted; default every later one. */
  times?: number;
  /** Hold the call before it is forwarded (or dropped). */
  holdRequest?: Hold;
  /** Whether the node gets the call; default true. */
  forward?: boolean;
  /** Hold the node's answer before the caller gets anything. */
  holdResponse?: Hold;
  /** What the caller gets; default `pass` when forwarded, `http-502` when not. */
  respond?: FaultAnswer;
}

/** One JSON-RPC call seen by the proxy (one element of a batch counts as one call). */
export interface RpcCall {
  method: string;
  params: unknown;
  /** 1-based index among this method's calls since the last `reset()`. */
  index: number;
  /** The rule that applied, or null when the call passed untouched. */
  rule: FaultRule | null;
  /** Set once the node has been sent the call (it may have executed it even if the caller never learns). */
  forwarded: boolean;
  /** What the caller got, once it got it; undefined while the call is held or in flight. */
  answered?: FaultAnswer;
  /** When the proxy took the call and when it was done with it (`performance.now()`, this process). */
  receivedAt: number;
  doneAt?: number;
}

/** One line per call, times in ms from `since` (`performance.now()`): for a failure's message. */
export function describeCalls(calls: readonly RpcCall[], since: number): string[] {
  const at = (time: number) => `+${Math.round(time - since)}`;
  return calls.map(
    (call) =>
      `${at(call.receivedAt)} ${call.method}#${call.index}${call.rule ? ' faulted' : ''}` +
      `${call.forwarded ? ' forwarded' : ''} -> ${call.answered ?? 'open'}` +
      (call.doneAt === undefined ? '' : ` at ${at(call.doneAt)}`),
  );
}

export interface RpcFaultProxy extends LoopbackServer {
  /** Sets (replaces) the rule of `method`; `*` applies to every method without a rule of its own. */
  rule(method: string, rule: FaultRule): void;
  /** Calls of `method` (every method when omitted), in arrival order. */
  calls(method?: string): readonly RpcCall[];
  /** Resolves with the first call of `method` matching `test` (now or later); rejects after `timeoutMs`. */
  until(method: string, test?: (call: RpcCall) => boolean, timeoutMs?: number): Promise<RpcCall>;
  /** Calls not answered yet (held or in flight at the node), across resets. */
  pending(): number;
  /** Milliseconds since a call last arrived or was answered (across resets). */
  idleMs(): number;
  /** Lets every call held `until-released` continue as its rule says. */
  release(): void;
  /** Removes every rule, releases held calls, clears records and per-method counters. */
  reset(): void;
}

type Outcome = { kind: 'json'; body: unknown } | { kind: 'http-502' } | { kind: 'reset' };

interface JsonRpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const UNTIL_DEFAULT_TIMEOUT_MS = 10_000;

/** Starts the proxy on an ephemeral loopback port, forwarding to `nodeUrl`. */
export async function startRpcFaultProxy(nodeUrl: URL): Promise<RpcFaultProxy> {
  const rules = new Map<string, FaultRule>();
  const counters = new Map<string, number>();
  let records: RpcCall[] = [];
  let releases = new Set<() => void>();
  const watchers = new Set<() => void>();
  let lastActivity = performance.now();
  let unanswered = 0;
  const changed = () => {
    lastActivity = performance.now();
    for (const watcher of [...watchers]) watcher();
  };

  // A call held `until-released` goes on at once if a release came after it arrived.
  let releaseCount = 0;
  const hold = async (duration: Hold | undefined, arrivedAt: number) => {
    if (duration === undefined) return;
    if (duration !== 'until-released') return void (await sleep(duration));
    if (releaseCount !== arrivedAt) return;
    await new Promise<void>((resolve) => releases.add(resolve));
  };

  const forward = async (request: JsonRpcRequest): Promise<unknown> => {
    const res = await fetch(nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    return res.json();
  };

  async function handleCall(request: JsonRpcRequest): Promise<Outcome> {
    const method = typeof request.method === 'string' ? request.method : '';
    const index = (counters.get(method) ?? 0) + 1;
    counters.set(method, index);
    const candidate = rules.get(method) ?? rules.get('*');
    const from = candidate?.from ?? 1;
    const applies =
      candidate !== undefined &&
      index >= from &&
      index < from + (candidate.times ?? Number.POSITIVE_INFINITY);
    const call: RpcCall = {
      method,
      params: request.params,
      index,
      rule: applies ? candidate : null,
      forwarded: false,
      receivedAt: performance.now(),
    };
    records.push(call);
    unanswered++;
    changed();
    try {
      return await play(call, request, releaseCount);
    } finally {
      call.doneAt = performance.now();
      unanswered--;
      changed();
    }
  }

  async function play(call: RpcCall, request: JsonRpcRequest, arrivedAt: number): Promise<Outcome> {
    const { rule } = call;
    await hold(rule?.holdRequest, arrivedAt);
    const sendOn = rule?.forward ?? true;
    let answer: unknown;
    if (sendOn) {
      call.forwarded = true;
      changed();
      answer = await forward(request);
    }
    await hold(rule?.holdResponse, arrivedAt);
    const respond = rule?.respond ?? (sendOn ? 'pass' : 'http-502');
    call.answered = respond;
    switch (respond) {
      case 'pass':
        return { kind: 'json', body: answer };
      case 'rpc-error':
        return {
          kind: 'json',
          body: {
            jsonrpc: '2.0',
            id: request.id ?? null,
            error: { code: -32603, message: 'internal error' },
          },
        };
      default:
        return { kind: respond };
    }
  }

  const server = await startLoopbackServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest | JsonRpcRequest[];
    const batch = Array.isArray(parsed);
    const outcomes = await Promise.all((batch ? parsed : [parsed]).map(handleCall));
    // One lost answer in a batch loses the whole HTTP response, as it would at a real gateway.
    const lost = outcomes.find((outcome) => outcome.kind !== 'json');
    if (lost?.kind === 'reset') return void req.socket.destroy();
    if (lost?.kind === 'http-502') {
      res.writeHead(502, { 'content-type': 'text/plain' });
      return void res.end('Bad Gateway');
    }
    const bodies = outcomes.map((outcome) => (outcome.kind === 'json' ? outcome.body : null));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(batch ? bodies : bodies[0]));
  });

  const release = () => {
    releaseCount++;
    const held = releases;
    releases = new Set();
    for (const resolve of held) resolve();
  };

  return Object.assign(server, {
    rule(method: string, rule: FaultRule) {
      rules.set(method, rule);
    },
    calls: (method?: string) => (method === undefined ? records : records.filter((c) => c.method === method)),
    until(
      method: string,
      test: (call: RpcCall) => boolean = () => true,
      timeoutMs = UNTIL_DEFAULT_TIMEOUT_MS,
    ) {
      return new Promise<RpcCall>((resolve, reject) => {
        const check = () => {
          const found = records.find((call) => call.method === method && test(call));
          if (!found) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`no matching ${method} call within ${timeoutMs} ms`));
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
    pending: () => unanswered,
    idleMs: () => performance.now() - lastActivity,
    release,
    reset() {
      rules.clear();
      counters.clear();
      release();
      records = [];
    },
  });
}
