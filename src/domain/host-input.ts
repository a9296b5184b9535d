/**
 * The hostname inside a `domain` input, which may be a bare hostname or a URL. Scheme, user info,
 * port, path, query and fragment are dropped by the WHATWG URL parser, never by hand.
 */
import { isIP } from 'node:net';
import type { InvalidReason } from './invalid-reasons.ts';
import { INVALID_REASON_CODES, invalidReason } from './invalid-reasons.ts';

/** `scheme://` at the start of the input (RFC 3986 §3.1 scheme syntax). */
const SCHEME_PREFIX = /^[a-z][a-z0-9+.-]*:\/\//i;
/** Characters a bare hostname never holds but a URL without a scheme does (path, query, port…). */
const URL_DELIMITERS = /[/?#@:\\]/;
const CONTROL_CHARACTER = /\p{Cc}/u;
/** A run of `%XX` escapes: one UTF-8 sequence may span several. */
const PERCENT_ESCAPES = /(?:%[0-9a-f]{2})+/gi;

export type HostInput = { ok: true; host: string } | { ok: false; reason: InvalidReason };

/** `[::1]` → `::1`; anything else unchanged. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * The host part of `input` (trimmed; not yet IDNA-mapped or lower-cased unless the URL parser did
 * it). Refuses empty input, control characters and URL-shaped input that does not parse.
 */
export function hostFromInput(input: string): HostInput {
  const text = input.trim();
  if (text === '') {
    return { ok: false, reason: invalidReason(INVALID_REASON_CODES.empty, 'The domain is empty.') };
  }
  // The URL parser silently deletes tabs and newlines anywhere in its input (WHATWG URL, basic URL
  // parser), which would turn `exa\nmple.com` into `example.com`; refuse every control character.
  if (CONTROL_CHARACTER.test(text)) {
    return {
      ok: false,
      reason: invalidReason(
        INVALID_REASON_CODES.invalidCharacters,
        'The domain contains control characters.',
      ),
    };
  }
  // A bare IPv6 address is full of colons but is not a URL; the caller refuses it as an IP literal.
  if (isIP(unbracket(text)) !== 0) return { ok: true, host: text };
  if (!SCHEME_PREFIX.test(text) && !URL_DELIMITERS.test(text)) {
    return { ok: true, host: percentDecode(text) };
  }

  const url = URL.parse(SCHEME_PREFIX.test(text) ? text : `http:${text.startsWith('//') ? '' : '//'}${text}`);
  if (url === null) {
    return {
      ok: false,
      reason: invalidReason(
        INVALID_REASON_CODES.invalidUrl,
        'The domain looks like a URL but cannot be parsed as one.',
      ),
    };
  }
  if (url.hostname === '') {
    return { ok: false, reason: invalidReason(INVALID_REASON_CODES.empty, 'The URL has no hostname.') };
  }
  // Special schemes (http, https…) percent-decode the host; others keep it opaque (foo://ex%41mple).
  return { ok: true, host: percentDecode(url.hostname) };
}

/**
 * WHATWG URL host parsing's percent-decoding: `%XX` escapes become UTF-8 bytes (invalid sequences
 * become U+FFFD, which IDNA refuses); a `%` not followed by two hex digits stays as it is.
 */
function percentDecode(host: string): string {
  return host.replace(PERCENT_ESCAPES, (run) =>
    new TextDecoder().decode(Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16))),
  );
}
