/**
 * Fetch rejections → the probe's error kinds, in the shapes the runtimes give them: Node's fetch
 * (a TypeError whose cause carries the code), AggregateErrors from trying several addresses, and
 * message-only errors such as workerd's TLS wording.
 */
import { describe, expect, it } from 'vitest';
import { fetchErrorKind } from '../../../src/edge/fetch-error-kind.ts';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const nodeFetchFailure = (cause: unknown) => new TypeError('fetch failed', { cause });

describe('fetchErrorKind', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['EHOSTUNREACH', 'unreachable'],
    ['CERT_HAS_EXPIRED', 'tls_expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_hostname_mismatch'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_untrusted'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['HPE_INVALID_CONSTANT', 'http_error'],
  ])("reads Node's code %s from the cause → %s", (code, kind) => {
    expect(fetchErrorKind(nodeFetchFailure(coded(code)))).toBe(kind);
  });

  it('reads a code from an AggregateError member (several addresses tried)', () => {
    const tried = new AggregateError([new Error('first'), coded('ECONNREFUSED')], 'all failed');
    expect(fetchErrorKind(nodeFetchFailure(tried))).toBe('refused');
  });

  it.each([
    ["TLS peer's certificate is not trusted; reason = certificate has expired", 'tls_expired'],
    ["TLS peer's certificate is not trusted; reason = certificate is not yet valid", 'tls_not_yet_valid'],
    ["TLS peer's certificate is not trusted; reason = Hostname mismatch", 'tls_hostname_mismatch'],
    [
      "TLS peer's certificate is not trusted; reason = unable to get local issuer certificate",
      'tls_untrusted',
    ],
    ["TLS peer's certificate is not trusted; reason = self-signed certificate", 'tls_untrusted'],
    ['TLS handshake failed', 'tls'],
    ['connect(): Connection refused', 'refused'],
    ['Network connection lost.', 'reset'],
    ['other side closed', 'reset'],
    ['Network is unreachable', 'unreachable'],
  ])('reads the wording %j → %s', (message, kind) => {
    expect(fetchErrorKind(new Error(message))).toBe(kind);
    expect(fetchErrorKind(nodeFetchFailure(new Error(message)))).toBe(kind);
  });

  it.each([
    ['an opaque workerd failure', new Error('internal error; reference = 5a1b2c3d')],
    ["Node's bad-port refusal", nodeFetchFailure(new Error('bad port'))],
    ['a string', 'fetch failed'],
    ['null', null],
  ])('%s → network', (_name, error) => {
    expect(fetchErrorKind(error)).toBe('network');
  });

  it('stops on a cause cycle', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    Object.assign(first, { cause: second });
    expect(fetchErrorKind(first)).toBe('network');
  });
});
