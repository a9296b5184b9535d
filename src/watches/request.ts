/**
 * The body of `POST /v1/watches` and the arguments of `watch_domain`: `domain` (validated as every
 * paid route validates it), `webhook_url` (optional), `days` (integer 1–365, default 30). All of
 * it is decided before any payment logic; a refusal is a 400, never charged.
 */
import { isIP } from 'node:net';
import type { InvalidReason } from '../domain/invalid-reasons.ts';
import { MAX_INPUT_LENGTH, normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import { isPermittedAddress } from '../sources/public-fetch/address-policy.ts';
import { DEFAULT_DAYS, MAX_DAYS, MIN_DAYS } from './pricing.ts';

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const WATCH_INPUT_CODES = {
  missingDomain: 'missing_domain',
  invalidDomain: 'invalid_domain',
  invalidWebhookUrl: 'invalid_webhook_url',
  invalidDays: 'invalid_days',
  invalidBody: 'invalid_body',
} as const;

export interface WatchRequest {
  domain: ValidDomain;
  webhookUrl: string | null;
  days: number;
}

/** What a payment for this request buys, for binding a payment identifier to it. */
export const watchSubject = ({ domain, webhookUrl, days }: WatchRequest): string =>
  JSON.stringify([domain.domain, webhookUrl, days]);

export type WatchRequestCheck = { ok: true; request: WatchRequest } | { ok: false; reason: InvalidReason };

const refuse = (code: string, message: string): WatchRequestCheck => ({
  ok: false,
  reason: { code, message },
});

/**
 * The webhook URL as it will be fetched, or why not: `https://` only (`http://` too when
 * `allowPrivate`, for loopback test receivers), no credentials, at most 2,048 characters, and a
 * public DNS name — an IP literal only when `allowPrivate` and the address policy admits it.
 * Where the name points is judged again at every delivery.
 */
export function checkWebhookUrl(
  input: string,
  allowPrivate: boolean,
): { ok: true; url: string } | InvalidReason {
  const invalid = (message: string): InvalidReason => ({
    code: WATCH_INPUT_CODES.invalidWebhookUrl,
    message,
  });
  if (input.length > MAX_WEBHOOK_URL_LENGTH) {
    return invalid(`webhook_url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }
  if (!URL.canParse(input)) return invalid('webhook_url is not an absolute URL.');
  const url = new URL(input);
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return invalid('webhook_url must be an https:// URL.');
  if (url.username !== '' || url.password !== '') return invalid('webhook_url must not carry credentials.');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    if (allowPrivate && isPermittedAddress(host, true)) return { ok: true, url: url.href };
    return invalid('webhook_url must name a public DNS name, not an IP address.');
  }
  const name = normalizeDomain(host);
  if (!name.valid || name.domain !== host.toLowerCase()) {
    return invalid('webhook_url must name a public DNS name.');
  }
  return { ok: true, url: url.href };
}

/** Validates a parsed JSON body (or tool arguments). */
export function checkWatchRequest(body: unknown, allowPrivate: boolean): WatchRequestCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse(
      WATCH_INPUT_CODES.invalidBody,
      'The body must be a JSON object: { "domain": "example.com" }.',
    );
  }
  const { domain, webhook_url: webhookUrl, days } = body as Record<string, unknown>;
  if (domain === undefined || domain === null || (typeof domain === 'string' && domain.trim() === '')) {
    return refuse(WATCH_INPUT_CODES.missingDomain, 'The field `domain` is required, e.g. "example.com".');
  }
  if (typeof domain !== 'string')
    return refuse(WATCH_INPUT_CODES.invalidDomain, '`domain` must be a string.');
  if (domain.length > MAX_INPUT_LENGTH) {
    return refuse(
      WATCH_INPUT_CODES.invalidDomain,
      `The domain is longer than ${MAX_INPUT_LENGTH} characters.`,
    );
  }
  const checked = normalizeDomain(domain);
  if (!checked.valid) return refuse(WATCH_INPUT_CODES.invalidDomain, checked.reason.message);

  let url: string | null = null;
  if (webhookUrl !== undefined && webhookUrl !== null) {
    if (typeof webhookUrl !== 'string') {
      return refuse(WATCH_INPUT_CODES.invalidWebhookUrl, '`webhook_url` must be a string.');
    }
    const verdict = checkWebhookUrl(webhookUrl, allowPrivate);
    if (!('ok' in verdict)) return { ok: false, reason: verdict };
    url = verdict.url;
  }

  const wanted = days ?? DEFAULT_DAYS;
  if (typeof wanted !== 'number' || !Number.isInteger(wanted) || wanted < MIN_DAYS || wanted > MAX_DAYS) {
    return refuse(
      WATCH_INPUT_CODES.invalidDays,
      `\`days\` must be a whole number from ${MIN_DAYS} to ${MAX_DAYS}.`,
    );
  }
  const { valid: _valid, ...validDomain } = checked;
  return { ok: true, request: { domain: validDomain, webhookUrl: url, days: wanted } };
}
