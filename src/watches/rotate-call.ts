/**
 * A rotation as both transports answer it (`POST /v1/watches/{id}/rotate-…`, `watch_rotate_…`): the
 * new token or webhook secret, shown once; a pull-only watch has no secret to rotate (409).
 */
import type { Problem } from '../vocabulary/problems.ts';
import type { WatchRecord } from './model.ts';
import type { Watches } from './ports.ts';
import { type Rotated, secretGenerationOf, tokenGenerationOf } from './rotations.ts';

const NO_WEBHOOK: Problem = {
  status: 409,
  code: 'no_webhook',
  title: 'No webhook',
  detail: 'This watch is pull-only: it has no webhook secret to rotate.',
};

export type RotationAnswer =
  | { ok: true; body: { watch_id: string; token?: string; webhook_secret?: string } }
  | { ok: false; problem: Problem };

export async function rotateCall(
  { service, secrets }: Pick<Watches, 'service' | 'secrets'>,
  managed: WatchRecord,
  what: Rotated,
): Promise<RotationAnswer> {
  if (what === 'secret' && managed.webhookUrl === null) return { ok: false, problem: NO_WEBHOOK };
  const watch = (await service.rotate(managed.id, what)) ?? managed;
  const body =
    what === 'token'
      ? { watch_id: watch.id, token: await secrets.token(watch.id, tokenGenerationOf(watch)) }
      : {
          watch_id: watch.id,
          webhook_secret: await secrets.webhookSecret(watch.id, secretGenerationOf(watch)),
        };
  return { ok: true, body };
}
