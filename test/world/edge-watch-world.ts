/**
 * What the Worker's watch tests run on: the closed world, a local chain, the Worker built and
 * started in local workerd as two instances (isolates sharing the Durable Objects), and a real
 * webhook receiver on loopback.
 */
import { buildWorker } from '../../scripts/local-edge.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { type EdgeService, startEdgeService } from './edge-service.ts';
import { type HoldingWebhookReceiver, startHoldingWebhookReceiver } from './holding-webhook-receiver.ts';
import { startWorld, type World } from './index.ts';

export interface EdgeWatchWorld {
  world: World;
  chain: LocalChain;
  edge: EdgeService;
  receiver: HoldingWebhookReceiver;
  close(): Promise<void>;
}

/**
 * `variables`: the Worker's, beside the world's (e.g. `WATCH_INTERVAL_S`); `entry`: a test entry
 * wrapping the production Worker, when not the production one.
 */
export async function startEdgeWatchWorld(
  variables: Record<string, string>,
  entry?: string,
): Promise<EdgeWatchWorld> {
  const [world, chain, bundle, receiver] = await Promise.all([
    startWorld(),
    startLocalChain(),
    buildWorker(undefined, entry),
    startHoldingWebhookReceiver(),
  ]);
  const edge = await startEdgeService({ world, chain, bundle, instances: 2, variables });
  return {
    world,
    chain,
    edge,
    receiver,
    async close() {
      await edge.stop();
      await Promise.all([world.close(), chain.stop(), receiver.close()]);
    },
  };
}
