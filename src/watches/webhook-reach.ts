/**
 * Whether a webhook can be delivered to at all, decided before any payment logic: its name resolved
 * through the DoH resolvers, as every delivery resolves it (`sender.ts`, through the steered fetch),
 * and judged by the same address policy. A name with no address, or with none the policy admits, is
 * refused (400); a resolver that cannot answer is an upstream failure (502). Nothing is charged
 * either way, and every delivery still judges the name again (it may change).
 */
import { isIP } from 'node:net';
import type { RunOutcome } from '../checks/outcome.ts';
import type { SourceResult } from '../sources/failure.ts';
import { classifyAddress, isPermittedAddress } from '../sources/public-fetch/address-policy.ts';
import { WATCH_INPUT_CODES } from './request.ts';

/** Why `url` (already read by `request.ts`) cannot be delivered to, or null when it can. */
export type WebhookReach = (url: string) => Promise<Exclude<RunOutcome<never>, { type: 'result' }> | null>;

/** Failures that are the name's own answer, not the resolvers' trouble. */
const NAME_FAILURES = new Set(['servfail', 'refused']);

export function webhookReach(
  resolve: (name: string) => Promise<SourceResult<string[]>>,
  allowPrivate: boolean,
): WebhookReach {
  const refuse = (message: string) =>
    ({ type: 'invalid_input', reason: { code: WATCH_INPUT_CODES.invalidWebhookUrl, message } }) as const;
  return async (url) => {
    const host = new URL(url).hostname;
    // An IP literal was judged by the reader (admitted only for loopback test receivers).
    if (isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0) return null;
    const resolved = await resolve(host);
    if (!resolved.ok) {
      const { code, source, detail } = resolved.failure;
      if (NAME_FAILURES.has(code)) return refuse(`webhook_url's host ${host} cannot be resolved (${code}).`);
      return { type: 'upstream_failed', upstreams: [{ name: source, error: code, detail }] };
    }
    if (resolved.value.length === 0) return refuse(`webhook_url's host ${host} has no address.`);
    if (resolved.value.some((address) => isPermittedAddress(address, allowPrivate))) return null;
    const [first = ''] = resolved.value;
    const verdict = classifyAddress(first);
    const range = verdict.allowed ? 'a refused range' : verdict.range;
    return refuse(
      `webhook_url's host ${host} resolves only to addresses deliveries refuse (${first}: ${range}).`,
    );
  };
}
