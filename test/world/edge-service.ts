/**
 * The Worker as deployed, in local workerd: the closed world for its upstreams (the emulated edge
 * network resolves through the world's DoH and trusts its test CA), a local chain with a fresh
 * funded settler key (self-settlement through the settler object), and as many Worker instances
 * as asked, each its own isolate on its own port, sharing the Durable Objects.
 */
import { createTestClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type LocalEdge, startLocalEdge, type WorkerBundle } from '../../scripts/local-edge.ts';
import { baseChainAt } from '../../src/payments/chain/base-chain.ts';
import type { LocalChain } from '../../src/payments/chain/local-chain.ts';
import type { World } from './index.ts';
import { onFreePorts } from './service-process.ts';

/** ETH (wei) a fresh settler key gets for gas. */
const SETTLER_GAS_FUNDS = 10n ** 20n;

export interface EdgeService {
  /** One URL per Worker instance; `urls[0]` is also the public base URL. */
  urls: URL[];
  /** The variables the Worker runs with (as docs/configuration.md names them). */
  variables: Record<string, string>;
  /** Everything the runtime printed so far: the Worker's console and workerd's own messages. */
  output(): string;
  stop(): Promise<void>;
}

export async function startEdgeService(options: {
  world: World;
  chain: LocalChain;
  bundle: WorkerBundle;
  instances?: number;
  variables?: Record<string, string>;
}): Promise<EdgeService> {
  const { world, chain, bundle, instances = 1 } = options;
  const settlerPrivateKey = generatePrivateKey();
  await createTestClient({
    mode: 'anvil',
    chain: baseChainAt(chain.rpcUrl),
    transport: http(chain.rpcUrl.href),
  }).setBalance({ address: privateKeyToAccount(settlerPrivateKey).address, value: SETTLER_GAS_FUNDS });
  const host = '127.0.0.1';
  let output = '';
  const { edge, variables } = await onFreePorts(instances, async (ports) => {
    const variables = {
      ...world.env,
      PUBLIC_BASE_URL: `http://${host}:${ports[0]}`,
      X402_RPC_URL: chain.rpcUrl.href,
      X402_SETTLER_PRIVATE_KEY: settlerPrivateKey,
      X402_PAY_TO: chain.payTo,
      X402_RECEIPT_POLL_MS: '50',
      // Every case comes without CF-Connecting-IP, so from one client; the free-work limit has its
      // own tests (edge-free-work.test.ts).
      RATE_LIMIT_BURST: '0',
      // Watch tokens and webhook secrets derive from it (the Worker sells watches with it).
      WATCH_SECRET_KEY: 'edge-world-watch-key-0123456789abcdef01234',
      ...options.variables,
    };
    const edge: LocalEdge = await startLocalEdge({
      variables,
      host,
      ports,
      bundle,
      extraCa: world.site.caPem,
      output: (line) => (output += `${line}\n`),
    });
    return { edge, variables };
  });
  return { urls: edge.urls, variables, output: () => output, stop: () => edge.stop() };
}
