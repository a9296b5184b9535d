/**
 * The receiver-host bound where no one process sees every attempt: slots leased and freed, an
 * attempt that waits for one, gives up as `host_busy` past its wait, and goes out unbounded when
 * the lender cannot be asked.
 */
import { describe, expect, it } from 'vitest';
import {
  boundedByHost,
  type HostSlotLeases,
  type HostSlots,
  leaseHostSlot,
} from '../../../src/watches/host-slots.ts';
import type { WebhookSender } from '../../../src/watches/ports.ts';

const REQUEST = { url: 'https://hooks.example.com:8443/a', headers: {}, body: '{}' };

describe('leaseHostSlot', () => {
  it('lends at most `limit` slots, renews a holder, and frees an expired lease', () => {
    const leases: HostSlotLeases = new Map();
    expect(leaseHostSlot(leases, 'a', 2, 1_000, 0)).toBe(true);
    expect(leaseHostSlot(leases, 'b', 2, 1_000, 10)).toBe(true);
    expect(leaseHostSlot(leases, 'c', 2, 1_000, 20)).toBe(false);
    // A holder asking again renews its own slot.
    expect(leaseHostSlot(leases, 'a', 2, 1_000, 500)).toBe(true);
    expect(leases.get('a')).toBe(1_500);
    // b's lease ran out: c takes its slot.
    expect(leaseHostSlot(leases, 'c', 2, 1_000, 1_010)).toBe(true);
    expect([...leases.keys()].sort()).toEqual(['a', 'c']);
  });
});

/** Slots of one host in memory, with what was asked. */
function memorySlots(limit: number) {
  const leases: HostSlotLeases = new Map();
  const asked: string[] = [];
  const slots: HostSlots = {
    acquire: async (holder) => {
      asked.push(holder);
      return leaseHostSlot(leases, holder, limit, 20_000, 0);
    },
    release: async (holder) => {
      leases.delete(holder);
    },
  };
  return { leases, asked, slots };
}

describe('boundedByHost', () => {
  it('holds a slot of the receiver host (host and port) while the attempt runs, and frees it after', async () => {
    const { leases, slots } = memorySlots(4);
    const hosts: string[] = [];
    let heldDuring = 0;
    const send: WebhookSender = async () => {
      heldDuring = leases.size;
      return { kind: 'answered', status: 204 };
    };
    const bounded = boundedByHost(send, (host) => (hosts.push(host), slots));
    expect(await bounded(REQUEST)).toEqual({ kind: 'answered', status: 204 });
    expect(hosts).toEqual(['hooks.example.com:8443']);
    expect(heldDuring).toBe(1);
    expect(leases.size).toBe(0);
  });

  it('waits while the slots are taken, asking less and less often, and sends once one is free', async () => {
    const { leases, asked, slots } = memorySlots(1);
    leases.set('someone', Number.MAX_SAFE_INTEGER);
    let clock = 0;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      clock += ms;
      if (waits.length === 5) leases.delete('someone');
    };
    let sent = 0;
    const bounded = boundedByHost(
      async () => {
        sent += 1;
        return { kind: 'answered', status: 200 };
      },
      () => slots,
      { sleep, now: () => clock },
    );
    expect(await bounded(REQUEST)).toEqual({ kind: 'answered', status: 200 });
    expect(waits).toEqual([100, 200, 400, 800, 1_000]);
    expect(asked).toHaveLength(6);
    expect(sent).toBe(1);
  });

  it('counts the attempt as failed (host_busy) when no slot frees within its wait, sending nothing', async () => {
    const { leases, slots } = memorySlots(1);
    leases.set('someone', Number.MAX_SAFE_INTEGER);
    let clock = 0;
    let sent = 0;
    const bounded = boundedByHost(
      async () => {
        sent += 1;
        return { kind: 'answered', status: 200 };
      },
      () => slots,
      { waitMs: 5_000, sleep: async (ms) => void (clock += ms), now: () => clock },
    );
    expect(await bounded(REQUEST)).toEqual({ kind: 'failed', error: 'host_busy' });
    expect(sent).toBe(0);
    expect(clock).toBeLessThanOrEqual(5_000);
  });

  it('sends unbounded when the slots cannot be asked: an alert matters more than the bound', async () => {
    let sent = 0;
    const bounded = boundedByHost(
      async () => {
        sent += 1;
        return { kind: 'answered', status: 200 };
      },
      () => ({
        acquire: () => Promise.reject(new Error('object unreachable')),
        release: () => Promise.reject(new Error('object unreachable')),
      }),
    );
    expect(await bounded(REQUEST)).toEqual({ kind: 'answered', status: 200 });
    expect(sent).toBe(1);
  });
});
