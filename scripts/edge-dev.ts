/**
 * `npm run edge:dev`: the Worker in local workerd on `PORT`, configured from the same variables as
 * `npm start`. Without a facilitator or settler it starts the embedded local chain, as `npm start`
 * does, and settles on it through the Worker's settler object. Stops on SIGTERM or Ctrl-C.
 */
import { type LocalChain, startLocalChain } from '../src/payments/chain/local-chain.ts';
import { listenFailure, loadConfigOrExit, localChainBanner } from '../src/startup-messages.ts';
import { startLocalEdge } from './local-edge.ts';

/** Receipt polling on the local chain, which mines each transaction at once. */
const LOCAL_RECEIPT_POLL_MS = '50';

const config = loadConfigOrExit();
const variables = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
);
const local: LocalChain | undefined =
  config.x402.mode.kind === 'local-chain' ? await startLocalChain() : undefined;
if (local) {
  Object.assign(variables, {
    X402_RPC_URL: local.rpcUrl.href,
    X402_SETTLER_PRIVATE_KEY: local.settler.privateKey,
    X402_PAY_TO: local.payTo,
    X402_RECEIPT_POLL_MS: LOCAL_RECEIPT_POLL_MS,
  });
}
variables.PUBLIC_BASE_URL = config.publicBaseUrl;

const edge = await startLocalEdge({ variables, host: config.host, ports: [config.port] }).catch(
  async (error: unknown) => {
    await local?.stop();
    const line = listenFailure(error, config, 'npm run edge:dev');
    if (!line) throw error;
    process.stderr.write(`${line}\n`);
    process.exit(1);
  },
);
process.stdout.write(
  `${JSON.stringify({
    level: 30,
    time: new Date().toISOString(),
    msg: 'listening',
    runtime: 'workerd',
    port: config.port,
    host: config.host,
    bundle_gzip_kib: edge.bundle.gzipKiB,
    pid: process.pid,
    ...(local ? { anvil_pid: local.pid } : {}),
  })}\n`,
);
if (local)
  process.stdout.write(localChainBanner({ ...config, x402: { ...config.x402, payTo: local.payTo } }, local));

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await edge.stop();
  await local?.stop();
  process.exit(0);
};
// This script owns the signals: Miniflare's own handlers would exit 143 at once, before the runtime
// and the chain have stopped.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, stop);
}
