/**
 * Paid calls end to end on the local chain (self-settlement, the in-process facilitator): payers
 * paying concurrently with the official x402 client, latency per call payment included, and the
 * JSON-RPC methods the service sent per payment (counted at `fetch`, which viem's transport uses).
 * The payers sign on a worker thread (`paid-payers.ts`), as clients do on their own machines: on
 * the service's thread, their signing and requests would queue in front of the service's own work.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { SharedPaymentState } from '../src/payments/payments.ts';
import { startPaidService } from '../test/world/paid-service.ts';
import type { PayersJob } from './paid-payers.ts';

export interface PaidReport {
  payers: number;
  calls: number;
  p50_ms: number;
  p99_ms: number;
  share_over_1s: number;
  rpc_per_payment: Record<string, number>;
}

type PayersMessage = { type: 'warm' } | { type: 'done'; ms: number[] };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

export async function benchPaid({
  payers = 20,
  callsEach = 5,
  shared,
}: { payers?: number; callsEach?: number; shared?: SharedPaymentState } = {}): Promise<PaidReport> {
  const service = await startPaidService(shared);
  const rpc: Record<string, number> = {};
  const realFetch = globalThis.fetch;
  const rpcUrl = service.chain.rpcUrl.href;
  let payersThread: Worker | undefined;
  try {
    const accounts = await Promise.all(Array.from({ length: payers }, () => service.newPayer(10n ** 9n)));
    const job: PayersJob = {
      url: service.url.href,
      privateKeys: accounts.map((account) => account.privateKey),
      callsEach,
    };
    const thread = new Worker(new URL('./paid-payers.ts', import.meta.url), { workerData: job });
    payersThread = thread;
    // A worker that throws rejects the wait with its error.
    const nextMessage = async () => ((await once(thread, 'message')) as [PayersMessage])[0];
    if ((await nextMessage()).type !== 'warm') throw new Error('payers did not warm up');
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.startsWith(rpcUrl) && typeof init?.body === 'string') {
        const body = JSON.parse(init.body) as { method: string } | { method: string }[];
        for (const call of Array.isArray(body) ? body : [body])
          rpc[call.method] = (rpc[call.method] ?? 0) + 1;
      }
      return realFetch(input, init);
    };
    thread.postMessage('go');
    const done = await nextMessage();
    if (done.type !== 'done') throw new Error('payers did not finish');
    const { ms } = done;
    const calls = ms.length;
    return {
      payers,
      calls,
      p50_ms: Math.round(percentile(ms, 50)),
      p99_ms: Math.round(percentile(ms, 99)),
      share_over_1s: Math.round((ms.filter((value) => value >= 1000).length / calls) * 100) / 100,
      rpc_per_payment: Object.fromEntries(
        Object.entries(rpc).map(([method, count]) => [method, Math.round((count / calls) * 10) / 10]),
      ),
    };
  } finally {
    globalThis.fetch = realFetch;
    await payersThread?.terminate();
    await service.close();
  }
}
