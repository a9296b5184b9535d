/**
 * Paid calls end to end on the local chain (self-settlement, the in-process facilitator): payers
 * paying concurrently with the official x402 client, latency per call payment included, and the
 * JSON-RPC methods the service sent per payment (counted at `fetch`, which viem's transport uses).
 */
import { startPaidService } from '../test/world/paid-service.ts';

export interface PaidReport {
  payers: number;
  calls: number;
  p50_ms: number;
  p99_ms: number;
  share_over_1s: number;
  rpc_per_payment: Record<string, number>;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

export async function benchPaid({ payers = 20, callsEach = 5 } = {}): Promise<PaidReport> {
  const service = await startPaidService();
  const rpc: Record<string, number> = {};
  const realFetch = globalThis.fetch;
  const rpcUrl = service.chain.rpcUrl.href;
  try {
    const accounts = await Promise.all(Array.from({ length: payers }, () => service.newPayer(10n ** 9n)));
    // One paid call each first, uncounted, so that startup reads (chain id, the asset's code) are not counted.
    await Promise.all(
      accounts.map((payer) =>
        service.payingFetch(payer)(new URL('/v1/cert?domain=example.com', service.url)),
      ),
    );
    globalThis.fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.startsWith(rpcUrl) && typeof init?.body === 'string') {
        const body = JSON.parse(init.body) as { method: string } | { method: string }[];
        for (const call of Array.isArray(body) ? body : [body])
          rpc[call.method] = (rpc[call.method] ?? 0) + 1;
      }
      return realFetch(input, init);
    };
    const ms: number[] = [];
    await Promise.all(
      accounts.map(async (payer) => {
        const pay = service.payingFetch(payer);
        for (let call = 0; call < callsEach; call += 1) {
          const started = performance.now();
          const res = await pay(new URL(`/v1/cert?domain=example.com&n=${call}`, service.url));
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`paid call answered ${res.status}`);
          ms.push(performance.now() - started);
        }
      }),
    );
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
    await service.close();
  }
}
