/**
 * What `REDIS_URL` costs, against the same work in one process, in the same run: paid calls on the
 * local chain with the payment state in a redis-server on loopback (lock, lost-result claim, wallet
 * lease and nonce), and the free-work limit's bucket taken in Redis on `/v1/validate` under load.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { pino } from 'pino';
import { connectSharedStore } from '../src/redis/connection.ts';
import { sharedPaymentState } from '../src/redis/shared-state.ts';
import { startRedisServer } from '../test/world/redis-server.ts';
import { freePort, load, serviceEnv, startCommand, waitReady } from './http.ts';
import { benchPaid } from './paid.ts';

const FREE_WORK_ROUTE = '/v1/validate?domain=example.com';

export interface SharedStoreReport {
  paid: { memory_p50_ms: number; redis_p50_ms: number; memory_p99_ms: number; redis_p99_ms: number };
  free_work: { memory_rps: number; redis_rps: number; memory_p99_ms: number; redis_p99_ms: number };
  /** Redis over memory: latency ratios for paid calls (p50), throughput ratio for free work. */
  ratios: { paid_p50: number; free_work_rps: number };
}

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
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
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
    };
  } finally {
    await redis.close();
  }
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
