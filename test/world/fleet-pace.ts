/**
 * The fleet's paid pace against one instance's, in one run: three `npm start` instances with one
 * settler key and one redis-server reached through a latency proxy, and one instance alone (no
 * Redis, a key of its own), each behind its RPC fault proxy on one anvil chain. A burst of paid
 * calls is made at once with the official `@x402/fetch` client by several payers, spread over the
 * instances given, and what the payers were charged is read from the chain.
 */
import { generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { paidOperations, usdToAtomic } from '../../src/catalog.ts';
import { type LatencyProxy, startLatencyProxy } from './latency-proxy.ts';
import { payFor } from './paying-clients.ts';
import { startRedisServer } from './redis-server.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from './self-settling-service.ts';

/** The operation paid for: the cert check of a healthy world domain. */
const CERT = paidOperations.find((operation) => operation.id === 'v1_cert')!;
const OPERATION = { route: CERT.route, tool: CERT.tool, domain: 'healthy-shop.com' };
const PRICE = BigInt(usdToAtomic(CERT.priceUsd));
/** Test USDC each payer starts with: far more than its calls cost. */
const FUNDS = 100n * PRICE;
/** Calls each payer makes in a burst, side by side. */
const CALLS_PER_PAYER = 4;

export interface Burst {
  calls: number;
  delivered: number;
  /** What the calls not delivered were answered, e.g. `{ '503 payment_unavailable': 3 }`. */
  refused: Record<string, number>;
  /** From the first request to the last answer. */
  seconds: number;
  /** Delivered calls per second. */
  perSecond: number;
  /** What the burst's payers were charged in all, read from the chain. */
  charged: bigint;
  /** The price times the calls delivered: what `charged` must be. */
  owed: bigint;
}

/** Bursts on one instance and on the fleet, in the order A B B A, and the pace of each in all. */
export interface Race {
  alone: Burst[];
  fleet: Burst[];
  /** Delivered calls per second over each side's bursts. */
  alonePerSecond: number;
  fleetPerSecond: number;
}

export interface PaceLab {
  settlement: SettlementWorld;
  /** The fleet's Redis as its instances reach it: set `delayMs` to slow every round trip. */
  redis: LatencyProxy;
  fleet: SelfSettlingService[];
  alone: SelfSettlingService;
  /** Holds every JSON-RPC call of every instance `ms` before it reaches the chain (0: none). */
  rpcLatency(ms: number): void;
  /** `calls` paid calls at once, call i on `services[i % services.length]`. */
  burst(services: readonly SelfSettlingService[], calls: number): Promise<Burst>;
  /**
   * Bursts of `calls` on `one` and on the fleet: one, the fleet, the fleet again, one again, so that
   * a load changing during the run (the machine is shared) weighs on both alike.
   */
  race(one: SelfSettlingService, calls: number): Promise<Race>;
  close(): Promise<void>;
}

export async function startPaceLab({ instances = 3 } = {}): Promise<PaceLab> {
  const [settlement, server] = await Promise.all([startSettlementWorld(), startRedisServer()]);
  let redis: LatencyProxy | undefined;
  try {
    redis = await startLatencyProxy(server.url);
    const settlerPrivateKey = generatePrivateKey();
    const env = { REDIS_URL: redis.url.href, PUBLIC_BASE_URL: 'https://checks.example.test' };
    const [alone, ...fleet] = await Promise.all([
      settlement.startService(),
      ...Array.from({ length: instances }, () => settlement.startService({ settlerPrivateKey, env })),
    ]);
    const everyone = [alone!, ...fleet];
    // Each instance settles once first: its start-up reads (chain id, the asset's code) are not measured.
    const warm = await settlement.newPayer(FUNDS);
    for (const service of everyone) await paidCalls([service], [warm], 1);
    const proxy = redis;
    const lab: PaceLab = {
      settlement,
      redis: proxy,
      fleet,
      alone: alone!,
      rpcLatency(ms) {
        for (const service of everyone)
          if (ms > 0) service.proxy.rule('*', { holdRequest: ms });
          else service.proxy.reset();
      },
      async burst(services, calls) {
        const payers = await Promise.all(
          Array.from({ length: Math.ceil(calls / CALLS_PER_PAYER) }, () => settlement.newPayer(FUNDS)),
        );
        const started = performance.now();
        const answers = await paidCalls(services, payers, calls);
        const seconds = (performance.now() - started) / 1000;
        const balances = await Promise.all(payers.map((payer) => settlement.chain.balanceOf(payer.address)));
        const delivered = answers.filter((answer) => answer.delivered).length;
        const refused: Record<string, number> = {};
        for (const answer of answers.filter((one) => !one.delivered)) {
          const what = `${answer.status} ${answer.code}`;
          refused[what] = (refused[what] ?? 0) + 1;
        }
        return {
          calls,
          delivered,
          refused,
          seconds: round(seconds),
          perSecond: round(delivered / seconds),
          charged: balances.reduce((sum, balance) => sum + (FUNDS - balance), 0n),
          owed: PRICE * BigInt(delivered),
        };
      },
      async race(one, calls) {
        const alone = [await lab.burst([one], calls)];
        const fleetBursts = [await lab.burst(fleet, calls), await lab.burst(fleet, calls)];
        alone.push(await lab.burst([one], calls));
        return {
          alone,
          fleet: fleetBursts,
          alonePerSecond: paceOf(alone),
          fleetPerSecond: paceOf(fleetBursts),
        };
      },
      async close() {
        await settlement.close();
        await proxy.close();
        await server.close();
      },
    };
    return lab;
  } catch (error) {
    await Promise.all([settlement.close(), redis?.close(), server.close()]);
    throw error;
  }
}

/** `calls` paid calls at once, payer `i % payers.length` paying call i on `services[i % services.length]`. */
async function paidCalls(
  services: readonly SelfSettlingService[],
  payers: readonly PrivateKeyAccount[],
  calls: number,
) {
  return Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      const service = services[i % services.length]!;
      const payer = payers[i % payers.length]!;
      const call = await payFor({ transport: 'http', baseUrl: service.process.url, ...OPERATION, payer });
      return call.answer;
    }),
  );
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Delivered calls per second over `bursts`. */
export const paceOf = (bursts: readonly Burst[]) =>
  round(bursts.reduce((sum, b) => sum + b.delivered, 0) / bursts.reduce((sum, b) => sum + b.seconds, 0));

/** One line per side of a race, for the record of a run. */
export function describeRace(race: Race): string {
  const line = (who: string, bursts: readonly Burst[], pace: number) =>
    `${who}: ${bursts.map((b) => `${b.delivered}/${b.calls} in ${b.seconds} s ${JSON.stringify(b.refused)}`).join(', ')}; ${pace} paid calls/s`;
  return `${line('one instance', race.alone, race.alonePerSecond)}\n${line('three instances', race.fleet, race.fleetPerSecond)}`;
}
