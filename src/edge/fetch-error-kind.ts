/**
 * The probe's error kind for a rejected `fetch`, whichever runtime made it. Node's fetch (undici)
 * rejects with `TypeError('fetch failed')` and keeps the socket or TLS error, code included, as
 * its `cause`; other runtimes say why only in a message, if at all. workerd rejects every
 * certificate failure with an opaque "internal error" (the reason goes to its own log), so on
 * Workers those stay `network`.
 */
import { errorKindOf, type ProbeErrorKind } from '../sources/probe/error-kind.ts';

// OpenSSL's verify strings (which workerd quotes as "TLS peer's certificate is not trusted;
// reason = …") and the runtimes' own wording. The first match wins, so narrower kinds come first.
const MESSAGE_KINDS: readonly (readonly [RegExp, ProbeErrorKind])[] = [
  [/certificate has expired/i, 'tls_expired'],
  [/certificate is not yet valid/i, 'tls_not_yet_valid'],
  [/hostname mismatch|does not match certificate/i, 'tls_hostname_mismatch'],
  [
    /not trusted|self[- ]signed certificate|unable to get local issuer|unable to verify the first certificate/i,
    'tls_untrusted',
  ],
  [/\b(?:tls|ssl)\b|handshake/i, 'tls'],
  [/connection refused/i, 'refused'],
  [/connection reset|connection lost|other side closed/i, 'reset'],
  [/unreachable/i, 'unreachable'],
];

/** The error, its `cause` chain and the members of any AggregateError, outermost first. */
function chainOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const pending: unknown[] = [error];
  while (pending.length > 0 && chain.length < 16) {
    const next = pending.shift();
    if (next === null || typeof next !== 'object' || chain.includes(next)) continue;
    chain.push(next);
    const { cause, errors } = next as { cause?: unknown; errors?: unknown };
    pending.push(cause, ...(Array.isArray(errors) ? errors : []));
  }
  return chain;
}

/** Maps a fetch rejection to its kind: an error code anywhere in the chain first, then the wording. */
export function fetchErrorKind(error: unknown): ProbeErrorKind {
  const chain = chainOf(error);
  for (const link of chain) {
    const kind = errorKindOf(link);
    if (kind !== 'network') return kind;
  }
  for (const link of chain) {
    const message = (link as { message?: unknown }).message;
    if (typeof message !== 'string') continue;
    const known = MESSAGE_KINDS.find(([pattern]) => pattern.test(message));
    if (known) return known[1];
  }
  return 'network';
}
