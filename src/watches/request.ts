/**
 * The body of `POST /v1/watches` and the arguments of `watch_domain`: `domain` (validated as every
 * paid route validates it), `webhook_url` (optional), `days` (1 to the most one payment of at most
 * $1.00 buys, default 30). One zod schema says it all: the documents and the tools are built from it
 * and every request is read by it, before any payment logic; a refusal is a 400, never charged.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import type { InvalidReason } from '../domain/invalid-reasons.ts';
import { MAX_INPUT_LENGTH, normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import { isPermittedAddress } from '../sources/public-fetch/address-policy.ts';
import type { Config } from '../config.ts';
import { DEFAULT_DAYS, MAX_DAYS, maxDaysAt, MIN_DAYS } from './pricing.ts';

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Where `days` beyond one payment's worth go instead. */
export const EXTEND_ROUTE = '/v1/watches/{watch_id}/extend';

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

/**
 * Ports a delivery is sent to: the scheme's default, or an unprivileged one. A well-known port
 * other than 80 and 443 (22, 25, …) speaks another protocol, and port 0 is nowhere.
 */
export function isDeliveryPort(url: URL): boolean {
  if (url.port === '') return true;
  const port = Number(url.port);
  return port === 443 || port === 80 || (port >= 1024 && port <= 65_535);
}

/**
 * The webhook URL as it will be fetched, or why not: written in normal form (`scheme://host…`, no
 * surrounding or inner whitespace), `https://` only (`http://` too when `allowPrivate`, for loopback
 * test receivers), no credentials, a port a delivery uses, at most 2,048 characters, and a public
 * DNS name — an IP literal only when `allowPrivate` and the address policy admits it. Where the
 * name points is judged before payment (`webhook-reach.ts`) and again at every delivery.
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
  if (/[\s\p{Cc}]/u.test(input)) return invalid('webhook_url must not contain whitespace.');
  if (!URL.canParse(input) || !/^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(input)) {
    return invalid('webhook_url is not an absolute URL in normal form (https://host/path).');
  }
  const url = new URL(input);
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return invalid('webhook_url must be an https:// URL.');
  if (url.username !== '' || url.password !== '') return invalid('webhook_url must not carry credentials.');
  if (!isDeliveryPort(url)) {
    return invalid(`webhook_url's port ${url.port} is not one deliveries use (443, 80 or 1024–65535).`);
  }
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

const MISSING_DOMAIN = 'The field `domain` is required, e.g. "example.com".';

/** A refinement's issue carrying its problem code (read back by `codeOf`). */
function refuse(ctx: z.RefinementCtx, code: string, message: string): void {
  ctx.addIssue({ code: 'custom', message, params: { code } });
}

/** What bounds the input: the most days one payment buys, and whether test receivers are admitted. */
export interface WatchInputBounds {
  maxDays: number;
  allowPrivate: boolean;
}

/** The fields of a watch request under `bounds`, each with the refusal of its own problem code. */
export function watchInputShapeFor({ maxDays, allowPrivate }: WatchInputBounds) {
  const daysMessage = `\`days\` must be a whole number from ${MIN_DAYS} to ${maxDays}.`;
  return {
    domain: z
      .string({
        error: (issue) =>
          issue.input === undefined || issue.input === null ? MISSING_DOMAIN : '`domain` must be a string.',
      })
      .max(MAX_INPUT_LENGTH, { error: `The domain is longer than ${MAX_INPUT_LENGTH} characters.` })
      .superRefine((domain, ctx) => {
        if (domain.trim() === '') return refuse(ctx, WATCH_INPUT_CODES.missingDomain, MISSING_DOMAIN);
        const checked = normalizeDomain(domain);
        if (!checked.valid) refuse(ctx, WATCH_INPUT_CODES.invalidDomain, checked.reason.message);
      })
      .describe(
        'Domain name or URL to watch, e.g. example.com (Unicode and URLs are normalized to the host).',
      ),
    webhook_url: z
      .string({ error: '`webhook_url` must be a string.' })
      .max(MAX_WEBHOOK_URL_LENGTH, {
        error: `webhook_url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`,
      })
      .superRefine((url, ctx) => {
        const verdict = checkWebhookUrl(url, allowPrivate);
        if (!('ok' in verdict)) refuse(ctx, verdict.code, verdict.message);
      })
      .optional()
      .describe(
        'https:// URL that receives each event, signed per Standard Webhooks 1.0; omit for a pull-only watch.',
      ),
    days: z
      .number({ error: daysMessage })
      .int({ error: daysMessage })
      .min(MIN_DAYS, { error: daysMessage })
      .max(maxDays, {
        error: `\`days\` is at most ${maxDays}, the most one payment of at most $1.00 buys; to watch longer, extend the watch with POST ${EXTEND_ROUTE} (MCP watch_extend).`,
      })
      .optional()
      .describe(
        `How many days to watch, ${MIN_DAYS}–${maxDays} (default ${DEFAULT_DAYS}); the price is pro rata. Extend for more.`,
      ),
  };
}

/** The bounds a service's configuration sets. */
export const watchInputBoundsOf = (config: Config): WatchInputBounds => ({
  maxDays: maxDaysAt(config.watches.pricePer30DaysUsd),
  allowPrivate: config.probe.allowPrivate,
});

/** The fields at the default price: what the documents and tool listings show. */
export const watchInputShape = watchInputShapeFor({ maxDays: MAX_DAYS, allowPrivate: false });

const FIELD_CODES: Record<string, string> = {
  domain: WATCH_INPUT_CODES.invalidDomain,
  webhook_url: WATCH_INPUT_CODES.invalidWebhookUrl,
  days: WATCH_INPUT_CODES.invalidDays,
};

/** The problem code of a zod issue: a refinement's own, else the field's (a missing domain apart). */
function codeOf(issue: z.core.$ZodIssue): string {
  const own = (issue as { params?: { code?: unknown } }).params?.code;
  if (typeof own === 'string') return own;
  const [field] = issue.path;
  if (field === 'domain' && issue.message === MISSING_DOMAIN) return WATCH_INPUT_CODES.missingDomain;
  return (typeof field === 'string' ? FIELD_CODES[field] : undefined) ?? WATCH_INPUT_CODES.invalidBody;
}

/** `body` read by `schema`, or the first refusal with its problem code. */
function readBy<T>(
  schema: z.ZodType<T>,
  body: unknown,
): { ok: true; data: T } | { ok: false; reason: InvalidReason } {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, data: parsed.data };
  const [issue] = parsed.error.issues;
  return {
    ok: false,
    reason: issue
      ? { code: codeOf(issue), message: issue.message }
      : { code: WATCH_INPUT_CODES.invalidBody, message: 'The body is not a watch request.' },
  };
}

/** The reader of an extension's body under `bounds`: `{ days }`, required. */
export function extensionReader(
  bounds: WatchInputBounds,
): (body: unknown) => { ok: true; days: number } | { ok: false; reason: InvalidReason } {
  const schema = z.object(
    { days: watchInputShapeFor(bounds).days.unwrap() },
    { error: 'The body must be a JSON object: { "days": 30 }.' },
  );
  return (body) => {
    const read = readBy(schema, body);
    return read.ok ? { ok: true, days: read.data.days } : read;
  };
}

/** The reader of a watch request under `bounds`: a parsed JSON body (or tool arguments) → the request. */
export function watchRequestReader(bounds: WatchInputBounds): (body: unknown) => WatchRequestCheck {
  const schema = z.object(watchInputShapeFor(bounds), {
    error: 'The body must be a JSON object: { "domain": "example.com" }.',
  });
  return (body) => {
    const parsed = readBy(schema, body);
    if (!parsed.ok) return parsed;
    const { domain, webhook_url: webhookUrl, days = DEFAULT_DAYS } = parsed.data;
    // Both passed their refinements above: these only put them in the form they are kept in.
    const { valid: _valid, ...validDomain } = normalizeDomain(domain) as ValidDomain & { valid: true };
    const url = webhookUrl === undefined ? null : new URL(webhookUrl).href;
    return { ok: true, request: { domain: validDomain, webhookUrl: url, days } };
  };
}
