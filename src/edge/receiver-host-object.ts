/**
 * The receiver-host bound on Workers (`watches/host-slots.ts`): one object per receiver host (its
 * URL's host and port) lends the slots every watch object asks for before an attempt to that host.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import { HOST_CONCURRENCY } from '../watches/scheduler.ts';
import {
  HOST_SLOT_LEASE_MS,
  type HostSlotLeases,
  type HostSlots,
  leaseHostSlot,
} from '../watches/host-slots.ts';

export class ReceiverHostObject extends DurableObject {
  // In memory: the object runs one call at a time, and a reset that forgets the leases lets a few
  // more attempts start at once for a while; it never holds one back.
  readonly #leases: HostSlotLeases = new Map();

  acquire(holder: string): boolean {
    return leaseHostSlot(this.#leases, holder, HOST_CONCURRENCY, HOST_SLOT_LEASE_MS, Date.now());
  }

  release(holder: string): void {
    this.#leases.delete(holder);
  }
}

/** The slots of `host`, from its object. */
export function durableHostSlots(namespace: DurableObjectNamespace<ReceiverHostObject>) {
  return (host: string): HostSlots => {
    const object = namespace.get(namespace.idFromName(host));
    return {
      acquire: async (holder) => object.acquire(holder),
      release: async (holder) => object.release(holder),
    };
  };
}
