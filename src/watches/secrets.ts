/**
 * What only `WATCH_SECRET_KEY` can make: a watch's id from the payment signature that bought it,
 * and from the id its management token and its webhook secret. The stores hold none of them but the
 * id, so a copy of a store lets nobody manage a watch or sign a webhook; and a client that lost
 * its 201 and claims it again with the same signature gets the same id, token and secret.
 * HMAC-SHA256 over WebCrypto, so Node and Workers derive alike.
 */
import { SECRET_PREFIX } from './signature.ts';

export const WATCH_ID_PREFIX = 'wat_';
export const TOKEN_PREFIX = 'wtk_';

/** Derivations under one key; build once per process. */
export interface WatchSecrets {
  /** The id of the watch bought with this payment signature (lower-case hex, as signed). */
  watchId(paymentSignature: string): Promise<string>;
  /** The bearer token managing `watchId` (`generation`: how often it was rotated, `rotations.ts`). */
  token(watchId: string, generation?: number): Promise<string>;
  /** Whether `candidate` is the token of `watchId` at `generation`, compared in constant time. */
  tokenMatches(watchId: string, candidate: string, generation?: number): Promise<boolean>;
  /** The Standard Webhooks `whsec_…` secret of `watchId` at `generation`. */
  webhookSecret(watchId: string, generation?: number): Promise<string>;
}

const encoder = new TextEncoder();

function base64url(bytes: ArrayBuffer, length: number): string {
  return Buffer.from(bytes).subarray(0, length).toString('base64url');
}

/** Whether two strings are equal, in time that depends only on their lengths. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let difference = x.length ^ y.length;
  for (let i = 0; i < x.length; i += 1) difference |= (x[i] ?? 0) ^ (y[i % Math.max(1, y.length)] ?? 0);
  return difference === 0;
}

export function createWatchSecrets(key: string): WatchSecrets {
  const hmacKey = crypto.subtle.importKey(
    'raw',
    encoder.encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  // Each derivation has its own label, so no output of one is an output of another.
  const derive = async (label: string, input: string) =>
    crypto.subtle.sign('HMAC', await hmacKey, encoder.encode(`website-checks/watch/${label}\0${input}`));

  // Generation 0 derives from the id alone, as before rotations existed.
  const rotated = (watchId: string, generation = 0) =>
    generation === 0 ? watchId : `${watchId}\0${generation}`;
  const token = async (watchId: string, generation?: number) =>
    `${TOKEN_PREFIX}${base64url(await derive('token', rotated(watchId, generation)), 32)}`;
  return {
    watchId: async (signature) =>
      `${WATCH_ID_PREFIX}${base64url(await derive('id', signature.toLowerCase()), 16)}`,
    token,
    tokenMatches: async (watchId, candidate, generation) =>
      constantTimeEqual(await token(watchId, generation), candidate),
    webhookSecret: async (watchId, generation) =>
      `${SECRET_PREFIX}${Buffer.from(await derive('webhook-secret', rotated(watchId, generation))).toString('base64')}`,
  };
}
