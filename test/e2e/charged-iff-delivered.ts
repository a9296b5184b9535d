/**
 * The product's central invariant, as a table of cases shared by the HTTP and MCP suites: for every
 * paid call, the payer's on-chain balance moves by the price if and only if the check's result was
 * delivered to the client, and by exactly 0 otherwise. Each case injects RPC faults (through the
 * fault proxy the service settles through) or makes the client give up at some stage, then reads
 * the chain once the service is quiet, scans everything the client saw and every log line for
 * secrets and internals, and makes one more paid call to prove the service still settles.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { type PaidAnswer, type PaidCall, payFor, type Transport } from '../world/paying-clients.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { describeCalls, type FaultRule } from '../world/rpc-fault-proxy.ts';
import { warningLines } from '../world/service-process.ts';
import {
  type Runtime,
  type SelfSettlingService,
  type ServiceOptions,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { waitFor } from '../support/wait-for.ts';

/** The operation every case pays for: a cert check of a healthy world domain, $0.01. */
export const OPERATION = { route: '/v1/cert', tool: 'check_cert', domain: 'healthy-shop.com' } as const;
export const PRICE = 10_000n;
export const FUNDS = 1_000_000n;
const FOLLOW_UP_TIMEOUT_MS = 8_000;
const QUIET_TIMEOUT_MS = 20_000;
/** Longer than the settler's receipt polling (1 s), so a pending settlement is not mistaken for quiet. */
export const QUIET_AFTER_ABORT_MS = 1_500;
export const QUIET_AFTER_ANSWER_MS = 200;
const RETRY_ATTEMPTS = 5;
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/**
 * The settlement world with a pool of warmed-up service processes (each has settled one call), so
 * independent cases run side by side. A process a case leaves broken is replaced.
 */
export interface Lab {
  settlement: SettlementWorld;
  /**
   * Runs `work` with a service to itself: one of the pool, or with `fresh` a new process that never
   * settled anything (closed afterwards). `work` says whether the service still works.
   */
  withService<T>(
    work: (service: SelfSettlingService) => Promise<{ value: T; broken: boolean }>,
    options?: { fresh?: boolean },
  ): Promise<T>;
  close(): Promise<void>;
}

export async function startLab(
  options: { blockTimeSeconds?: number; services?: number; runtime?: Runtime; service?: ServiceOptions } = {},
): Promise<Lab> {
  const settlement = await startSettlementWorld(options);
  const warmService = async () => {
    const service = await settlement.startService(options.service);
    const payer = await settlement.newPayer(FUNDS);
    await payFor({ transport: 'http', baseUrl: service.process.url, ...OPERATION, payer });
    return service;
  };
  const idle: SelfSettlingService[] = [];
  const waiting: ((service: SelfSettlingService) => void)[] = [];
  const giveBack = (service: SelfSettlingService) => {
    const next = waiting.shift();
    if (next) next(service);
    else idle.push(service);
  };
  try {
    idle.push(...(await Promise.all(Array.from({ length: options.services ?? 1 }, warmService))));
  } catch (error) {
    await settlement.close();
    throw error;
  }
  return {
    settlement,
    async withService(work, { fresh = false } = {}) {
      if (fresh) {
        const service = await settlement.startService(options.service);
        try {
          return (await work(service)).value;
        } finally {
          await service.close();
        }
      }
      const service =
        idle.pop() ?? (await new Promise<SelfSettlingService>((resolve) => waiting.push(resolve)));
      let replacement = service;
      try {
        const { value, broken } = await work(service);
        if (broken) {
          await service.close();
          replacement = await warmService();
        }
        return value;
      } finally {
        giveBack(replacement);
      }
    },
    close: () => settlement.close(),
  };
}

export interface PaymentCase {
  name: string;
  /** Rules installed on the service's RPC proxy for the paid call, per JSON-RPC method. */
  faults?: Record<string, FaultRule>;
  /** Resolves at the moment the client gives up; it later retries the same authorization. */
  abortWhen?: (at: CaseContext) => Promise<unknown>;
  /** Delay of the CT upstream (crt.sh) the check reads, to keep a request inside the check. */
  slowCheckMs?: number;
  /** The domain checked; default `OPERATION.domain`. A slow check needs one no other case warms the cache for. */
  domain?: string;
  /** The fault is ordinary latency: the result must be delivered (and charged). */
  mustDeliver?: boolean;
  /** Run on a new process that has settled nothing yet (its caches are cold). */
  freshService?: boolean;
}

const dropRequest: FaultRule = { forward: false };
const loseAnswer = (respond: FaultRule['respond'], rule: FaultRule = {}): FaultRule => ({ ...rule, respond });

/** Where a case runs: the shared settlement world and the service process it has to itself. */
export interface CaseContext {
  settlement: SettlementWorld;
  service: SelfSettlingService;
}

/** Once crt.sh (the check's first upstream) has been asked: the check is running. */
export async function checkRunning({ settlement }: CaseContext): Promise<void> {
  const before = settlement.world.crtsh.requests.length;
  await waitFor(() => settlement.world.crtsh.requests.length > before, {
    what: 'the check to ask crt.sh',
    everyMs: 20,
  });
}

/**
 * The cases, by stage after the longest one. Call order of one paid call on the current code
 * (verify → check → settle) paid with an account's own signature: eth_getCode of the asset (a
 * process's first payment only) beside eth_call (verify simulation); eth_fillTransaction (the
 * settlement prepared while the check runs; asked again beside the settle simulation if it failed);
 * eth_call (settle simulation) beside eth_getTransactionCount (the nonce count), then
 * eth_sendRawTransaction, eth_getTransactionReceipt.
 */
export const PAYMENT_CASES: readonly PaymentCase[] = [
  // First: only the authorization's expiry (its 45 s window and the margin) proves that a transfer
  // whose broadcast may have been lost was not paid, so this case lasts about 50 s; started first,
  // the other cases run beside it on the other services of the pool.
  {
    name: 'broadcast: eth_sendRawTransaction never reaches the node',
    faults: { eth_sendRawTransaction: dropRequest },
  },
  { name: 'no fault: the normal paid path', mustDeliver: true },
  // Verify
  {
    name: "verify, first call of a fresh process: the asset's eth_getCode never reaches the node",
    faults: { eth_getCode: dropRequest },
    freshService: true,
  },
  // A warm process reads no code for an account's payment: the asset's is known (15 min).
  {
    name: "verify, first call of a fresh process: the asset's eth_getCode answers are lost (502)",
    faults: { eth_getCode: { respond: 'http-502' } },
    freshService: true,
  },
  { name: 'verify: eth_call (simulation) never reaches the node', faults: { eth_call: dropRequest } },
  { name: 'verify: eth_call answers are lost (connection reset)', faults: { eth_call: loseAnswer('reset') } },
  { name: 'verify: eth_call answers a JSON-RPC error', faults: { eth_call: loseAnswer('rpc-error') } },
  { name: 'verify: eth_call stalls 1 s', faults: { eth_call: { holdRequest: 1_000 } }, mustDeliver: true },
  // Settle, before the transfer is broadcast
  {
    name: 'settle: the simulation eth_call never reaches the node',
    faults: { eth_call: { from: 2, forward: false } },
  },
  {
    name: 'settle: the nonce count, read beside the simulation, never reaches the node',
    faults: { eth_getTransactionCount: dropRequest },
  },
  {
    name: 'settle: the nonce count read beside the simulation fails once (read again for the send)',
    faults: { eth_getTransactionCount: { times: 1, forward: false } },
  },
  {
    name: 'the settlement prepared (Node: while the check runs): eth_fillTransaction never reaches the node',
    faults: { eth_fillTransaction: dropRequest },
  },
  {
    name: 'the settlement prepared (Node: while the check runs): eth_fillTransaction answer lost once',
    faults: { eth_fillTransaction: loseAnswer('reset', { times: 1 }) },
  },
  // Broadcast (and the first case)
  {
    name: 'broadcast: eth_sendRawTransaction dropped once',
    faults: { eth_sendRawTransaction: { times: 1, forward: false } },
  },
  {
    name: 'broadcast: sent, answer lost once (502)',
    faults: { eth_sendRawTransaction: loseAnswer('http-502', { times: 1 }) },
  },
  {
    name: 'broadcast: sent, connection reset once',
    faults: { eth_sendRawTransaction: loseAnswer('reset', { times: 1 }) },
  },
  {
    name: 'broadcast: sent, JSON-RPC error once',
    faults: { eth_sendRawTransaction: loseAnswer('rpc-error', { times: 1 }) },
  },
  { name: 'broadcast: sent, every answer lost', faults: { eth_sendRawTransaction: loseAnswer('http-502') } },
  {
    name: 'broadcast: eth_sendRawTransaction stalls 1 s',
    faults: { eth_sendRawTransaction: { holdRequest: 1_000 } },
    mustDeliver: true,
  },
  // Confirmation
  {
    name: 'confirm: receipt requests never reach the node',
    faults: { eth_getTransactionReceipt: dropRequest },
  },
  {
    name: 'confirm: the first 2 receipt answers are lost',
    faults: { eth_getTransactionReceipt: loseAnswer('reset', { times: 2 }) },
  },
  {
    name: 'confirm: receipts answer JSON-RPC errors',
    faults: { eth_getTransactionReceipt: loseAnswer('rpc-error') },
  },
  {
    name: 'confirm: the receipt stalls 1.5 s',
    faults: { eth_getTransactionReceipt: { holdRequest: 1_500 } },
    mustDeliver: true,
  },
  // The client gives up
  {
    name: 'client aborts during the check',
    slowCheckMs: 1_500,
    domain: 'renewal-due.net',
    abortWhen: checkRunning,
  },
  {
    name: 'client aborts during settlement (receipt pending)',
    faults: { eth_getTransactionReceipt: { holdRequest: 'until-released' } },
    abortWhen: ({ service }) => service.proxy.until('eth_getTransactionReceipt'),
  },
  {
    name: 'client aborts after the transfer was broadcast',
    faults: { eth_sendRawTransaction: { holdResponse: 'until-released' } },
    abortWhen: ({ service }) => service.proxy.until('eth_sendRawTransaction', (call) => call.forwarded),
  },
];

/** What happened to one case's paid call, as asserted (and printed on failure). */
export interface Observation {
  answer: Omit<PaidAnswer, 'seen'>;
  /** The same authorization sent again after an abort, once the service was quiet. */
  retried: Omit<PaidAnswer, 'seen'> | null;
  delivered: boolean;
  /** Atomic USDC that left the payer. */
  delta: bigint;
  /** Every faulted method saw at least one faulted call (and an abort case really aborted). */
  exercised: boolean;
  leaks: string[];
  /** The service process was still running after the call. */
  alive: boolean;
  /** A fresh paid call after the faults were cleared: delivered, and what it cost. */
  followUp: { delivered: boolean; status: number | null; delta: bigint };
  /** For a failure's message: the paid call's RPC calls (ms from its start) and the service's warnings. */
  trace: { answeredAfterMs: number; calls: string[]; warnings: string[] };
}

/** Names of the secrets and internals found in `text`. */
export function leaksIn(text: string, secrets: SelfSettlingService['secrets']): string[] {
  const found: string[] = [];
  if (text.includes(new URL(secrets.rpcUrl).host)) found.push('rpc url');
  if (text.toLowerCase().includes(secrets.settlerPrivateKey.slice(2).toLowerCase()))
    found.push('settler key');
  if (/0x02f8[0-9a-f]{200,}/i.test(text)) found.push('raw signed transaction');
  if (/ {4}at /.test(text)) found.push('stack frame');
  if (text.includes(REPO_ROOT)) found.push('repo path');
  return found;
}

/** Until no RPC call is open or recent and nothing minable waits in the mempool. */
export async function quiet({ settlement, service }: CaseContext, idleMs: number): Promise<void> {
  const deadline = performance.now() + QUIET_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const { proxy } = service;
    if (proxy.pending() === 0 && proxy.idleMs() >= idleMs && (await settlement.minablePending()) === 0)
      return;
    await sleep(50);
  }
  throw new Error(`the service did not go quiet within ${QUIET_TIMEOUT_MS} ms`);
}

const strip = ({ seen: _seen, ...answer }: PaidAnswer): Omit<PaidAnswer, 'seen'> => answer;

/** The same authorization again, once the first copy is no longer in flight. */
async function retryAfterQuiet(at: CaseContext, call: PaidCall, idleMs: number): Promise<PaidAnswer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call.retry();
    if (answer.code !== 'payment_in_flight' || attempt === RETRY_ATTEMPTS) return answer;
    await quiet(at, idleMs);
  }
}

/** A client that gives up when `leaveWhen` resolves (or, with a signal, when it aborts). */
type Leaving = AbortSignal | ((at: CaseContext) => Promise<unknown>);

/**
 * A paid call by a new payer. A client leaving by `leaveWhen` aborts its request and, where the
 * runtime cannot see that by itself (the Worker in local workerd), the service is told at once;
 * `left` resolves true once the service saw the client leave (Node sees the socket close).
 */
export async function paidCall(at: CaseContext, transport: Transport, domain: string, leaveWhen?: Leaving) {
  const payer = await at.settlement.newPayer(FUNDS);
  const { clientGone } = at.service;
  const client = clientGone ? crypto.randomUUID() : undefined;
  let signal = leaveWhen instanceof AbortSignal ? leaveWhen : undefined;
  let left = Promise.resolve(false);
  if (typeof leaveWhen === 'function') {
    const controller = new AbortController();
    signal = controller.signal;
    left = leaveWhen(at).then(
      async () => {
        controller.abort();
        return client && clientGone ? clientGone.report(client) : true;
      },
      () => false,
    );
  }
  const call = await payFor({
    transport,
    baseUrl: at.service.process.url,
    ...OPERATION,
    domain,
    payer,
    ...(signal ? { signal } : {}),
    ...(client && clientGone ? { headers: clientGone.headers(client) } : {}),
  });
  return { payer, call, left: call.answer.aborted ? left : Promise.resolve(false) };
}

/** Runs `paymentCase` over `transport` on a service of the lab's pool and reports what happened. */
export function observe(lab: Lab, transport: Transport, paymentCase: PaymentCase): Promise<Observation> {
  return lab.withService(
    async (service) => {
      const at: CaseContext = { settlement: lab.settlement, service };
      const value = await observeOn(at, transport, paymentCase);
      return { value, broken: !value.followUp.delivered };
    },
    { fresh: paymentCase.freshService ?? false },
  );
}

async function observeOn(
  at: CaseContext,
  transport: Transport,
  paymentCase: PaymentCase,
): Promise<Observation> {
  const { world, chain } = at.settlement;
  const { proxy, process, secrets } = at.service;
  proxy.reset();
  if (paymentCase.slowCheckMs) world.crtsh.delayMs = paymentCase.slowCheckMs;
  const logFrom = process.output().length;
  const faults = Object.entries(paymentCase.faults ?? {});
  for (const [method, rule] of faults) proxy.rule(method, rule);

  const domain = paymentCase.domain ?? OPERATION.domain;
  const startedAt = performance.now();
  const { payer, call, left } = await paidCall(at, transport, domain, paymentCase.abortWhen);
  const answeredAfterMs = Math.round(performance.now() - startedAt);
  const calls = describeCalls(proxy.calls(), startedAt);
  const exercised =
    faults.every(([method]) => proxy.calls(method).some((c) => c.rule !== null)) &&
    (paymentCase.abortWhen === undefined || (await left));

  // The outage ends; held calls go on as their rules say, and the service finishes what it started.
  proxy.reset();
  if (paymentCase.slowCheckMs) world.crtsh.delayMs = 0;
  // After an abort the service may still be inside a slow check, which makes no RPC call meanwhile.
  const idleMs = call.answer.aborted
    ? QUIET_AFTER_ABORT_MS + (paymentCase.slowCheckMs ?? 0)
    : QUIET_AFTER_ANSWER_MS;
  await quiet(at, idleMs);
  const retried = call.answer.aborted ? await retryAfterQuiet(at, call, idleMs) : null;
  if (retried) await quiet(at, QUIET_AFTER_ANSWER_MS);
  const delta = FUNDS - (await chain.balanceOf(payer.address));
  const seen = [call.answer.seen, retried?.seen ?? '', process.output().slice(logFrom)].join('\n');
  const alive = process.alive();

  const followUp = await paidCall(at, transport, OPERATION.domain, AbortSignal.timeout(FOLLOW_UP_TIMEOUT_MS));
  await quiet(at, QUIET_AFTER_ANSWER_MS);
  const followUpDelta = FUNDS - (await chain.balanceOf(followUp.payer.address));
  return {
    answer: strip(call.answer),
    retried: retried ? strip(retried) : null,
    delivered: call.answer.delivered || (retried?.delivered ?? false),
    delta,
    exercised,
    leaks: leaksIn(seen, secrets),
    alive,
    followUp: {
      delivered: followUp.call.answer.delivered,
      status: followUp.call.answer.status,
      delta: followUpDelta,
    },
    trace: { answeredAfterMs, calls, warnings: warningLines(process.output().slice(logFrom)) },
  };
}

/** The rules `seen` breaks; empty when the case holds. */
export function violations(paymentCase: PaymentCase, seen: Observation): string[] {
  const broken: string[] = [];
  if (!seen.exercised) broken.push('the fault or abort was not exercised');
  if (seen.delta !== 0n && seen.delta !== PRICE) broken.push('charged neither 0 nor the price');
  if (seen.delta === PRICE && !seen.delivered) broken.push('charged without delivering');
  if (seen.delta === 0n && seen.delivered) broken.push('delivered without charging');
  if (paymentCase.mustDeliver && !seen.delivered) broken.push('ordinary latency, yet not delivered');
  const { status, code, aborted } = seen.answer;
  // MCP tool results carry no HTTP status (null): there the code alone says it.
  const outageStatus = status === null || status === 502 || status === 503;
  if (!seen.delivered && !aborted && (!outageStatus || code !== 'payment_unavailable')) {
    broken.push('an outage not answered 502/503 payment_unavailable');
  }
  if (!seen.alive) broken.push('the service process died');
  if (seen.leaks.length > 0) broken.push(`leaked: ${seen.leaks.join(', ')}`);
  const { followUp } = seen;
  if (!followUp.delivered || followUp.delta !== PRICE)
    broken.push('the next paid call did not settle normally');
  return broken;
}

/**
 * Runs the case and asserts the invariant, the outage answer, no leaks and a working service after;
 * pass the test context's `expect` (cases run concurrently).
 */
export async function expectChargedIffDelivered(
  expect: ExpectStatic,
  lab: Lab,
  transport: Transport,
  paymentCase: PaymentCase,
): Promise<void> {
  const seen = await observe(lab, transport, paymentCase);
  const broken = violations(paymentCase, seen);
  const summary = JSON.stringify(seen, (_key, value: unknown) =>
    typeof value === 'bigint' ? String(value) : value,
  );
  expect(broken, `${transport} | ${paymentCase.name} | broken: ${broken.join('; ')} | ${summary}`).toEqual(
    [],
  );
}

/**
 * Declares the lab's lifecycle (one per file) and one concurrent test per case over `transport`
 * (default: every case, on Node); returns a getter for the lab, for further tests in the same file.
 */
export function describeChargedIffDelivered(
  transport: Transport,
  title: string,
  options: LabOptions & { cases?: readonly PaymentCase[] } = {},
): () => Lab {
  return describeChargedIffDeliveredOver([transport], title, options)[transport];
}

interface LabOptions {
  runtime?: Runtime;
  /** Two instances settling with one wallet, sharing their state through one redis-server. */
  sharedStore?: boolean;
}

/**
 * Over several transports at once, each with a lab of its own: one concurrent test per case and
 * transport (named `transport: case` when there are several), the cases' order kept, so every
 * transport's longest case starts first; returns a getter for each transport's lab.
 */
export function describeChargedIffDeliveredOver<T extends Transport>(
  transports: readonly T[],
  title: string,
  {
    runtime = 'node',
    cases = PAYMENT_CASES,
    sharedStore = false,
  }: LabOptions & { cases?: readonly PaymentCase[] } = {},
): Record<T, () => Lab> {
  const labs = new Map<Transport, Lab>();
  const redises: RedisServer[] = [];
  const startOne = async (): Promise<Lab> => {
    if (!sharedStore) return startLab({ services: 3, runtime });
    const redis = await startRedisServer();
    redises.push(redis);
    const service = { settlerPrivateKey: generatePrivateKey(), env: { REDIS_URL: redis.url.href } };
    return startLab({ services: 2, runtime, service });
  };
  // The labs start side by side; every one that started is closed, even when another failed.
  beforeAll(async () => {
    const started = await Promise.allSettled(transports.map(startOne));
    for (const [i, lab] of started.entries())
      if (lab.status === 'fulfilled') labs.set(transports[i] as Transport, lab.value);
    const failed = started.find((lab) => lab.status === 'rejected');
    if (failed) throw failed.reason;
  }, 120_000 * transports.length);
  afterAll(async () => {
    await Promise.all([...labs.values()].map((lab) => lab.close()));
    await Promise.all(redises.map((redis) => redis.close()));
  });
  const labOf = (transport: Transport) => () => labs.get(transport) as Lab;
  const runs = cases.flatMap((paymentCase) =>
    transports.map((transport) => ({
      transport,
      paymentCase,
      name: transports.length > 1 ? `${transport}: ${paymentCase.name}` : paymentCase.name,
    })),
  );
  describe(title, () => {
    it.concurrent.for(runs)('$name', { timeout: 90_000 }, async ({ transport, paymentCase }, { expect }) => {
      await expectChargedIffDelivered(expect, labOf(transport)(), transport, paymentCase);
    });
  });
  return Object.fromEntries(transports.map((transport) => [transport, labOf(transport)])) as Record<
    T,
    () => Lab
  >;
}
