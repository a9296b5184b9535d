/**
 * Standard Webhooks 1.0 signing (https://www.standardwebhooks.com/, spec/standard-webhooks.md):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` under the bytes the
 * `whsec_` secret encodes in base64. WebCrypto only, so Node and Workers sign alike.
 */

export const SECRET_PREFIX = 'whsec_';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError('a webhook secret starts with whsec_');
  return new Uint8Array(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'));
}

/** The `v1,<base64>` signature of one message. */
export async function signWebhook(
  secret: string,
  id: string,
  timestampS: number,
  body: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    secretBytes(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestampS}.${body}`));
  return `v1,${Buffer.from(mac).toString('base64')}`;
}

/** The headers of one delivery attempt of event `id` at `timestampS` (Unix seconds). */
export async function webhookHeaders(
  secret: string,
  id: string,
  timestampS: number,
  body: string,
): Promise<WebhookHeaders> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': await signWebhook(secret, id, timestampS, body),
    'content-type': 'application/json',
  };
}
