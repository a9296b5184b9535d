/**
 * One Durable Object per payment authorization (`payer:nonce`): its in-flight lock, so a signature
 * runs once whichever isolate or location its copies reach, and its settling record or lost result,
 * claimable once. One per payment identifier (`payment-id:<payer>:<id>`): the answer kept for it
 * (`payments/server/identified-answers.ts`). All live in the object's storage, so they survive the object's eviction; a lease
 * is short and renewed by the isolate holding it, so it ends within seconds when that isolate dies,
 * and an alarm clears what has expired.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import {
  type Begun,
  begun,
  IDENTIFIED_LEASE_MS,
  type IdentifiedAnswers,
  type IdentifiedRecord,
  type StoredAnswer,
} from '../payments/server/identified-answers.ts';
import type { InFlightLock } from '../payments/server/in-flight-lock.ts';
import { keepRenewed, LEASE_MS } from '../payments/server/lock-lease.ts';
import {
  type Claimed,
  claimOf,
  type LostResult,
  REDELIVERY_WINDOW_MS,
  SETTLING_RECORD_MS,
  type SettlingRecord,
  type Undelivered,
} from '../payments/server/undelivered.ts';

interface Lease {
  token: string;
  until: number;
}

type Stored = (LostResult | SettlingRecord) & { until: number };

export class AuthorizationObject extends DurableObject {
  /** Takes the lock for `leaseMs`; the token to release it with, or null while another holds it. */
  async acquire(leaseMs: number): Promise<string | null> {
    const held = await this.ctx.storage.get<Lease>('lease');
    const now = Date.now();
    if (held && held.until > now) return null;
    const lease = { token: crypto.randomUUID(), until: now + leaseMs };
    await this.ctx.storage.put('lease', lease);
    await this.ctx.storage.setAlarm(lease.until);
    return lease.token;
  }

  /** Extends the lease held with `token` by `leaseMs`; false when it is no longer held with it. */
  async renew(token: string, leaseMs: number): Promise<boolean> {
    const held = await this.ctx.storage.get<Lease>('lease');
    if (held?.token !== token) return false;
    const lease = { token, until: Date.now() + leaseMs };
    await this.ctx.storage.put('lease', lease);
    await this.ctx.storage.setAlarm(lease.until);
    return true;
  }

  async release(token: string): Promise<void> {
    const held = await this.ctx.storage.get<Lease>('lease');
    if (held?.token === token) await this.ctx.storage.delete('lease');
  }

  async remember(lost: LostResult): Promise<void> {
    await this.#store(lost, REDELIVERY_WINDOW_MS);
  }

  async settling(record: SettlingRecord): Promise<void> {
    await this.#store(record, SETTLING_RECORD_MS);
  }

  async settled(): Promise<void> {
    await this.ctx.storage.delete('lost');
  }

  /** A read, as on Redis: the record goes once the result is handed over (`settled`). */
  async claim(signature: string, resource?: string): Promise<Claimed> {
    const lost = await this.ctx.storage.get<Stored>('lost');
    return claimOf(lost && lost.until > Date.now() ? lost : undefined, signature, resource);
  }

  async #store(entry: LostResult | SettlingRecord, forMs: number): Promise<void> {
    const until = Date.now() + forMs;
    await this.ctx.storage.put<Stored>('lost', { ...entry, until });
    await this.ctx.storage.setAlarm(until);
  }

  /** Takes the payment identifier for `binding` when it is free (`IdentifiedAnswers.begin`). */
  async beginIdentified(binding: string, leaseMs: number): Promise<Begun> {
    const now = Date.now();
    const found = await this.ctx.storage.get<IdentifiedRecord>('identified');
    const known = begun(found && found.until > now ? found : null, binding);
    if (known) return known;
    const record = { binding, token: crypto.randomUUID(), until: now + leaseMs };
    await this.ctx.storage.put<IdentifiedRecord>('identified', record);
    await this.ctx.storage.setAlarm(record.until);
    return { kind: 'begun', token: record.token };
  }

  async answerIdentified(token: string, answer: StoredAnswer): Promise<void> {
    const found = await this.ctx.storage.get<IdentifiedRecord>('identified');
    if (found?.token !== token) return;
    const until = Date.now() + REDELIVERY_WINDOW_MS;
    await this.ctx.storage.put<IdentifiedRecord>('identified', { binding: found.binding, answer, until });
    await this.ctx.storage.setAlarm(until);
  }

  async releaseIdentified(token: string): Promise<void> {
    const found = await this.ctx.storage.get<IdentifiedRecord>('identified');
    if (found?.token === token) await this.ctx.storage.delete('identified');
  }

  /** Clears what has expired; an alarm set early by a later write reschedules itself to the latest entry. */
  async alarm(): Promise<void> {
    const now = Date.now();
    const [lease, lost, identified] = await Promise.all([
      this.ctx.storage.get<Lease>('lease'),
      this.ctx.storage.get<Stored>('lost'),
      this.ctx.storage.get<IdentifiedRecord>('identified'),
    ]);
    const latest = Math.max(lease?.until ?? 0, lost?.until ?? 0, identified?.until ?? 0);
    if (latest <= now) await this.ctx.storage.deleteAll();
    else await this.ctx.storage.setAlarm(latest);
  }
}

/**
 * The in-flight lock, the lost-result store and the identified answers of every instance, held by
 * `AuthorizationObject`s.
 * `recorded()` resolves once every lost result remembered so far is stored: a request whose client
 * left keeps running until then (`waitUntil`), or the record would be cut off with it.
 */
export function authorizationState(
  namespace: DurableObjectNamespace<AuthorizationObject>,
  onReleaseFailure: (error: unknown) => void,
): {
  lock: InFlightLock;
  undelivered: Undelivered;
  identified: IdentifiedAnswers;
  recorded: () => Promise<void>;
} {
  const objectFor = (key: string) => namespace.get(namespace.idFromName(key));
  const writes = new Set<Promise<void>>();
  return {
    recorded: async () => {
      await Promise.allSettled([...writes]);
    },
    lock: {
      async acquire(key) {
        const object = objectFor(key);
        const token = await object.acquire(LEASE_MS);
        if (token === null) return null;
        const stop = keepRenewed(() => object.renew(token, LEASE_MS), onReleaseFailure);
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          stop();
          await object.release(token).catch(onReleaseFailure);
        };
      },
    },
    undelivered: {
      remember(key, signature, receipt, delivered = false) {
        const write = objectFor(key).remember({ signature, receipt, delivered });
        writes.add(write);
        void write.finally(() => writes.delete(write)).catch(() => {});
        return write;
      },
      settling: (key, signature, resource) => objectFor(key).settling({ signature, resource }),
      settled: (key) => objectFor(key).settled(),
      claim: (key, signature, resource) => objectFor(key).claim(signature, resource),
    },
    identified: {
      begin: (key, binding) => objectFor(`payment-id:${key}`).beginIdentified(binding, IDENTIFIED_LEASE_MS),
      answer: (key, token, answer) => objectFor(`payment-id:${key}`).answerIdentified(token, answer),
      release: (key, token) => objectFor(`payment-id:${key}`).releaseIdentified(token),
    },
  };
}
