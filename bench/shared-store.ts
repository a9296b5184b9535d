/**
 * What `REDIS_URL` costs, against the same work in one process, in the same run: paid calls on the
 * local chain with the payment state in a redis-server on loopback (lock, lost-result claim, settler
 * nonce), and the free-work limit's bucket taken in Redis on `/v1/validate` under load; then the
 * fleet's pace: three `npm start` instances with one settler key and one Redis against one instance,
 * bursts of paid calls with every JSON-RPC call or every Redis round trip slowed (`test/world/fleet-pace.ts`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { pino } from 'pino';
import { connectSharedStore } from '../src/redis/connection.ts';
import { sharedPaymentState } from '../src/redis/shared-state.ts';
import { describeRace, type Race, startPaceLab } from '../test/world/fleet-pace.ts';
import { startRedisServer } from '../test/world/redis-server.ts';
import { freePort, load, serviceEnv, startCommand, waitReady } from './http.ts';
import { benchPaid } from './paid.ts';

const FREE_WORK_ROUTE = '/v1/validate?domain=example.com';

export interface SharedStoreReport {
  paid: { memory_p50_ms: number; redis_p50_ms: number; memory_p99_ms: number; redis_p99_ms: number };
  free_work: { memory_rps: number; redis_rps: number; memory_p99_ms: number; redis_p99_ms: number };
  /** Redis over memory: latency ratios for paid calls (p50), throughput ratio for free work. */
  ratios: { paid_p50: number; free_work_rps: number };
  /** Three instances against one, paid calls per second: RPC +150 ms (bursts of 48), Redis +200 ms (bursts of 36). */
  fleet: { rpc_150ms: FleetPace; redis_200ms: FleetPace };
}

export interface FleetPace {
  one_per_s: number;
  fleet_per_s: number;
  /** Calls not delivered, over all bursts of each side. */
  one_lost: number;
  fleet_lost: number;
  /** Whether every burst's payers were charged exactly the price of the calls delivered. */
  charged_as_owed: boolean;
  ratio: number;
  /** The bursts, one line per side. */
  detail: string;
}

/** Latency added to every JSON-RPC call, and to every Redis round trip, in the fleet's races. */
const RPC_LATENCY_MS = 150;
const REDIS_LATENCY_MS = 200;

export async function benchSharedStore({ seconds = 5 } = {}): Promise<SharedStoreReport> {
  const redis = await startRedisServer();
  try {
    const memoryPaid = await benchPaid();
    const store = connectSharedStore(redis.url, pino({ level: 'silent' }));
    const redisPaid = await benchPaid({
      shared: sharedPaymentState(store, pino({ level: 'silent' })),
    }).finally(() => store.close());
    const memoryFree = await freeWorkLoad({}, seconds);
    const redisFree = await freeWorkLoad({ REDIS_URL: redis.url.href }, seconds);
    const fleet = await fleetPace();
    return {
      paid: {
        memory_p50_ms: memoryPaid.p50_ms,
        redis_p50_ms: redisPaid.p50_ms,
        memory_p99_ms: memoryPaid.p99_ms,
        redis_p99_ms: redisPaid.p99_ms,
      },
      free_work: {
        memory_rps: Math.round(memoryFree.rps),
        redis_rps: Math.round(redisFree.rps),
        memory_p99_ms: memoryFree.p99,
        redis_p99_ms: redisFree.p99,
      },
      ratios: {
        paid_p50: ratio(redisPaid.p50_ms, memoryPaid.p50_ms),
        free_work_rps: ratio(redisFree.rps, memoryFree.rps),
      },
      fleet,
    };
  } finally {
    await redis.close();
  }
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/**
 * The fleet against one instance under a slow RPC (one instance without Redis, as it runs alone) and
 * a slow Redis (one instance of the fleet, on the same Redis).
 */
async function fleetPace(): Promise<SharedStoreReport['fleet']> {
  const lab = await startPaceLab();
  try {
    lab.rpcLatency(RPC_LATENCY_MS);
    const rpc = await lab.race(lab.alone, 48);
    lab.rpcLatency(0);
    lab.redis.delayMs = REDIS_LATENCY_MS;
    const redis = await lab.race(lab.fleet[0]!, 36);
    return { rpc_150ms: paceOf(rpc), redis_200ms: paceOf(redis) };
  } finally {
    await lab.close();
  }
}

function paceOf(race: Race): FleetPace {
  const lost = (bursts: Race['alone']) => bursts.reduce((sum, b) => sum + b.calls - b.delivered, 0);
  return {
    one_per_s: race.alonePerSecond,
    fleet_per_s: race.fleetPerSecond,
    one_lost: lost(race.alone),
    fleet_lost: lost(race.fleet),
    charged_as_owed: [...race.alone, ...race.fleet].every((burst) => burst.charged === burst.owed),
    ratio: ratio(race.fleetPerSecond, race.alonePerSecond),
    detail: describeRace(race),
  };
}

/** `npm start` (local chain) under autocannon on the free validate route, with `env` on top. */
async function freeWorkLoad(env: Record<string, string>, seconds: number) {
  const port = await freePort();
  const { flags, entry } = startCommand();
  const service = spawn(process.execPath, [...flags, entry], {
    env: { ...serviceEnv(port), LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  try {
    const url = `http://127.0.0.1:${port}${FREE_WORK_ROUTE}`;
    await waitReady(url, service);
    return await load(url, service.pid as number, 50, seconds);
  } finally {
    service.kill('SIGTERM');
    await once(service, 'exit');
  }
}
