/**
 * Waiting on what a loopback peer has seen: `until(predicate)` resolves once the predicate holds,
 * checked now and on every `changed()` the peer calls when it sees something.
 */
import { once } from 'node:events';
import type { Server, ServerResponse } from 'node:http';

export interface Conditions {
  until(predicate: () => boolean): Promise<void>;
  /** Re-checks every waiting predicate. */
  changed(): void;
}

export function conditions(): Conditions {
  const waiters = new Set<() => void>();
  return {
    until(predicate) {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve) => {
        const check = () => {
          if (!predicate()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    changed() {
      for (const waiter of waiters) waiter();
    },
  };
}

/** Closes `server`, ending first the answers it holds open (`held`) and every connection. */
export async function closeHolding(server: Server, held: Iterable<ServerResponse>): Promise<void> {
  for (const response of held) response.destroy();
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
}
