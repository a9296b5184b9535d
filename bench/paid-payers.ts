/**
 * The payers of the paid-call bench, on their own thread as clients are on their own machines: each
 * pays once to warm up, then, on `go`, makes its calls in sequence, all payers at once. Posts
 * `warm`, then the latency of every measured call in milliseconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { privateKeyToAccount } from 'viem/accounts';
import { payingFetchFor } from '../test/world/payer-client.ts';

export interface PayersJob {
  url: string;
  privateKeys: `0x${string}`[];
  callsEach: number;
}

const { url, privateKeys, callsEach } = workerData as PayersJob;
const port = parentPort;
if (!port) throw new Error('bench/paid-payers.ts runs as a worker');
const pays = privateKeys.map((key) => payingFetchFor(privateKeyToAccount(key)));

async function paidCall(pay: typeof fetch, path: string): Promise<number> {
  const started = performance.now();
  const res = await pay(new URL(path, url));
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`paid call answered ${res.status}`);
  return performance.now() - started;
}

// One call each first, uncounted: start-up reads (chain id, the asset's code) are not measured.
await Promise.all(pays.map((pay) => paidCall(pay, '/v1/cert?domain=example.com')));
port.postMessage({ type: 'warm' });
port.once('message', async () => {
  const ms: number[] = [];
  await Promise.all(
    pays.map(async (pay) => {
      for (let call = 0; call < callsEach; call += 1)
        ms.push(await paidCall(pay, `/v1/cert?domain=example.com&n=${call}`));
    }),
  );
  port.postMessage({ type: 'done', ms });
});
