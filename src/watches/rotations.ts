/**
 * Rotating a watch's token or webhook secret (contract §6.1): both derive from `WATCH_SECRET_KEY`
 * and the watch's id (`secrets.ts`), so a rotation is a generation counter on the record that the
 * derivation takes in. A new token invalidates the old one at once; a new secret is announced by
 * `watch.secret_rotated`, signed with the old secret so a receiver can trust the announcement.
 */
import { raise, type Transition, type WatchRecord } from './model.ts';

export type Rotated = 'token' | 'secret';

export const tokenGenerationOf = (watch: WatchRecord): number => watch.tokenGeneration ?? 0;
export const secretGenerationOf = (watch: WatchRecord): number => watch.secretGeneration ?? 0;

export function rotate(current: WatchRecord, what: Rotated, now: number): Transition {
  const watch: WatchRecord = { ...current, version: current.version + 1 };
  if (what === 'token') {
    watch.tokenGeneration = tokenGenerationOf(current) + 1;
    return { watch, events: [] };
  }
  watch.secretGeneration = secretGenerationOf(current) + 1;
  const events: Transition['events'] = [];
  raise(watch, events, 'watch.secret_rotated', now, { generation: watch.secretGeneration });
  return { watch, events };
}

/**
 * The secret generation a delivery of `eventBody` is signed with: the watch's current one, but the
 * one before for the `watch.secret_rotated` that announced it (a receiver holds only the old).
 */
export function signingGeneration(watch: WatchRecord | null, eventBody: string): number {
  const current = watch ? secretGenerationOf(watch) : 0;
  if (!eventBody.includes('"watch.secret_rotated"')) return current;
  const event = JSON.parse(eventBody) as { type?: string; data?: { generation?: unknown } };
  const announced = event.type === 'watch.secret_rotated' ? event.data?.generation : undefined;
  return typeof announced === 'number' && announced > 0 ? announced - 1 : current;
}
