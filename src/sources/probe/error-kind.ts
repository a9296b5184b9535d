/**
 * The live probe's error kinds (reported as `live_probe.error`) and the mapping from Node's socket,
 * TLS and HTTP parser error codes to them. Kinds are published: never rename one.
 */

/**
 * Why a probe failed. Certificate failures have their own `tls_*` kinds; `tls` is any other
 * handshake failure. `http_error` is a status of 500 or above, or a response Node could not parse.
 */
export type ProbeErrorKind =
  | 'timeout'
  | 'refused'
  | 'reset'
  | 'unreachable'
  | 'network'
  | 'tls'
  | 'tls_hostname_mismatch'
  | 'tls_untrusted'
  | 'tls_expired'
  | 'tls_not_yet_valid'
  | 'blocked_address'
  | 'no_address'
  | 'dns_failed'
  | 'http_error';

// OpenSSL X509 verify results as Node reports them in `error.code`.
const CERT_KINDS: Readonly<Record<string, ProbeErrorKind>> = {
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls_hostname_mismatch',
  CERT_HAS_EXPIRED: 'tls_expired',
  CERT_NOT_YET_VALID: 'tls_not_yet_valid',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_untrusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_untrusted',
  CERT_UNTRUSTED: 'tls_untrusted',
  CERT_REJECTED: 'tls_untrusted',
  CERT_SIGNATURE_FAILURE: 'tls_untrusted',
  INVALID_CA: 'tls_untrusted',
};

const SOCKET_KINDS: Readonly<Record<string, ProbeErrorKind>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset', // also Node's "socket hang up" before a response
  EPIPE: 'reset',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  EADDRNOTAVAIL: 'unreachable',
};

const CERTIFICATE_KINDS: ReadonlySet<ProbeErrorKind> = new Set(Object.values(CERT_KINDS));

/** True for the kinds that say the certificate was refused (expired, untrusted, wrong name, not yet valid). */
export function isCertificateKind(kind: ProbeErrorKind): boolean {
  return CERTIFICATE_KINDS.has(kind);
}

/** Maps an error from a socket, the TLS layer or the HTTP client to its kind; unknown ones are `network`. */
export function errorKindOf(error: unknown): ProbeErrorKind {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'network';
  const known = CERT_KINDS[code] ?? SOCKET_KINDS[code];
  if (known) return known;
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO') return 'tls';
  if (code.startsWith('HPE_')) return 'http_error'; // llhttp parse errors
  return 'network';
}
