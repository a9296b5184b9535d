/**
 * A graceful stop of the Node HTTP server: no new connections; keep-alive connections closed as
 * soon as they are idle; the rest closed once no request is in flight, or once the grace is over
 * and no settlement is under way (a half-sent request holds nothing). A settlement under way is
 * always let finish, so nobody is charged for an answer that never left.
 */
import type { ServerType } from '@hono/node-server';
import type { Lifecycle } from './lifecycle.ts';

/** Checks the server's state this often while stopping. */
const TICK_MS = 100;
/** Time for a response built after its settlement to be written before connections are cut. */
const FLUSH_MS = 500;

export interface StopOptions {
  server: ServerType;
  lifecycle: Lifecycle;
  /** Requests whose response is not built yet. */
  activeRequests: () => number;
  /** Past this, every connection is closed whatever is under way. */
  hardStopMs: number;
}

/** Resolves once the server has closed: true, or false when the hard stop had to cut connections. */
export function stopGracefully({
  server,
  lifecycle,
  activeRequests,
  hardStopMs,
}: StopOptions): Promise<boolean> {
  const http = server as ServerType & { closeIdleConnections?(): void; closeAllConnections?(): void };
  return new Promise((resolve) => {
    let quietSince: number | undefined;
    const startedAt = Date.now();
    const tick = setInterval(() => {
      http.closeIdleConnections?.();
      const graceOver = !lifecycle.acceptingSettlements();
      const quiet = lifecycle.settling === 0 && (activeRequests() === 0 || graceOver);
      quietSince = quiet ? (quietSince ?? Date.now()) : undefined;
      const settleFor = activeRequests() === 0 ? TICK_MS : FLUSH_MS;
      const flushed = quietSince !== undefined && Date.now() - quietSince >= settleFor;
      if (flushed) http.closeAllConnections?.();
      if (Date.now() - startedAt >= hardStopMs) {
        http.closeAllConnections?.();
        finish(false);
      }
    }, TICK_MS);
    let done = false;
    const finish = (clean: boolean) => {
      if (done) return;
      done = true;
      clearInterval(tick);
      resolve(clean);
    };
    server.close(() => finish(true));
    http.closeIdleConnections?.();
  });
}
