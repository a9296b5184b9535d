/**
 * One facilitator sync per resource server, shared by every transport (HTTP gate and MCP tools):
 * concurrent `initialize()` calls would clear and refill the server's maps under each other.
 */
import type { x402ResourceServer } from '@x402/core/server';
import type { Logger } from 'pino';

/** Resolves true once the facilitator's supported kinds are loaded; false (retried by the next call) on failure. */
export type FacilitatorReady = () => Promise<boolean>;

const readinessByServer = new WeakMap<x402ResourceServer, FacilitatorReady>();

/**
 * The single-flight `resourceServer.initialize()` of `resourceServer`: the same function for every
 * caller in the process, so the HTTP gate and the MCP tools never run two syncs at once.
 */
export function facilitatorReadiness(resourceServer: x402ResourceServer, logger: Logger): FacilitatorReady {
  const existing = readinessByServer.get(resourceServer);
  if (existing) return existing;
  let pending: Promise<boolean> | null = null;
  const ready: FacilitatorReady = () => {
    pending ??= resourceServer.initialize().then(
      () => true,
      (error: unknown) => {
        logger.error(
          { err: error },
          'x402 facilitator unavailable: its supported payment kinds could not be loaded',
        );
        pending = null;
        return false;
      },
    );
    return pending;
  };
  readinessByServer.set(resourceServer, ready);
  return ready;
}
