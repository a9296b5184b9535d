/** Node error codes → the probe's published error kinds. */
import { describe, expect, it } from 'vitest';
import { errorKindOf } from '../../../../src/sources/probe/error-kind.ts';

describe('errorKindOf', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['ETIMEDOUT', 'timeout'],
    ['EHOSTUNREACH', 'unreachable'],
    ['ENETUNREACH', 'unreachable'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_hostname_mismatch'],
    ['CERT_HAS_EXPIRED', 'tls_expired'],
    ['CERT_NOT_YET_VALID', 'tls_not_yet_valid'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_untrusted'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls_untrusted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_untrusted'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'tls'],
    ['EPROTO', 'tls'],
    ['HPE_INVALID_CONSTANT', 'http_error'],
    ['EADDRINUSE', 'network'],
  ])('%s → %s', (code, kind) => {
    expect(errorKindOf(Object.assign(new Error(code), { code }))).toBe(kind);
  });

  it.each([[new Error('no code')], [null], ['a string'], [{ code: 42 }]])(
    '%j without a string code → network',
    (error) => {
      expect(errorKindOf(error)).toBe('network');
    },
  );
});
