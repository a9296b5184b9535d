/** The check runners of a Durable Object on Workers: the global `fetch`, the edge's reach, the real clock. */
import type { Config } from '../config.ts';
import { createRunners } from '../runners.ts';
import { globalFetch } from '../service.ts';
import { edgeReach } from './edge-reach.ts';

export function edgeRunners(config: Config) {
  return createRunners(config, { fetch: globalFetch, now: () => new Date(), reach: edgeReach(globalFetch) });
}
