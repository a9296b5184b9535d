import { describe, expect, it } from 'vitest';
import { composeSiteHealth } from '../../../../src/checks/site-health/compose.ts';
import { siteHealthResultSchema } from '../../../../src/checks/site-health/result.ts';
import { certResult, DOMAIN, dnsResult, expiryResult, finding, NOW } from './fixtures.ts';

const ok = <R>(result: R) => ({ type: 'result' as const, result });
const down = (name: string, error: 'timeout' | 'http_status') => ({
  type: 'upstream_failed' as const,
  upstreams: [{ name, error }],
});

function compose(parts: Partial<Parameters<typeof composeSiteHealth>[0]> = {}) {
  return composeSiteHealth({
    domain: DOMAIN,
    cert: ok(certResult()),
    dns: ok(dnsResult()),
    expiry: ok(expiryResult()),
    now: NOW,
    ...parts,
  });
}

function resultOf(outcome: ReturnType<typeof compose>) {
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${outcome.type}`);
  return siteHealthResultSchema.parse(outcome.result);
}

describe('composeSiteHealth', () => {
  it('reports a healthy domain as ok with a plain headline and the 64-day note not applying', () => {
    const result = resultOf(compose());
    expect(result.summary).toEqual({
      status: 'ok',
      headline: 'shop.example.com looks healthy: no problems found across certificate, DNS and registration.',
      counts: { critical: 0, warning: 0, info: 0 },
    });
    expect(result.partial).toBe(false);
    expect(result.renewal_stall?.status).toBe('ok');
    expect(result.lifetime_note.applies).toBe(false);
    expect(result.lifetime_note.default_64_day_from).toBe('2027-02-10');
    expect(result.sources.map((s) => s.name)).toEqual(['crt.sh', 'doh', 'rdap']);
    expect(result.checked_at).toBe('2026-11-22T10:00:00Z');
  });

  it('takes the worst severity over all sections and leads the headline with it', () => {
    const result = resultOf(
      compose({
        dns: ok(
          dnsResult([
            finding('dmarc.policy_none', 'warning', 'DMARC policy is none, so spoofed mail is not rejected.'),
          ]),
        ),
        expiry: ok(
          expiryResult([finding('expiry.expires_soon', 'critical', 'The registration expires in 5 days.')]),
        ),
      }),
    );
    expect(result.summary.status).toBe('critical');
    expect(result.summary.counts).toEqual({ critical: 1, warning: 1, info: 0 });
    expect(result.summary.headline).toBe(
      'shop.example.com needs attention now: The registration expires in 5 days (1 more issue).',
    );
  });

  it('returns a partial result with the failed section as an error when one source fails', () => {
    const result = resultOf(compose({ expiry: down('rdap', 'timeout') }));
    expect(result.partial).toBe(true);
    expect(result.expiry).toEqual({
      error: { code: 'upstream_timeout', message: 'The data source failed: rdap (timeout).' },
    });
    expect(result.summary.headline).toContain('The registration check could not be completed.');
    expect(result.sources.map((s) => s.name)).toEqual(['crt.sh', 'doh']);
  });

  it('keeps an input refusal of one section (unsupported TLD) as that section error', () => {
    const result = resultOf(
      compose({
        expiry: {
          type: 'invalid_input',
          reason: { code: 'unsupported_tld', message: 'The .de registry publishes no RDAP service.' },
        },
      }),
    );
    expect(result.expiry).toEqual({
      error: { code: 'unsupported_tld', message: 'The .de registry publishes no RDAP service.' },
    });
    expect(result.partial).toBe(true);
  });

  it.each([
    ['cert and dns', { cert: down('crt.sh', 'timeout'), dns: down('doh', 'http_status') }],
    ['dns and expiry', { dns: down('doh', 'timeout'), expiry: down('rdap', 'http_status') }],
    ['cert and expiry', { cert: down('crt.sh', 'http_status'), expiry: down('rdap', 'timeout') }],
  ])('fails as a whole (502, not settled) when two sources fail: %s', (_name, parts) => {
    const outcome = compose(parts);
    expect(outcome.type).toBe('upstream_failed');
    if (outcome.type !== 'upstream_failed') return;
    expect(outcome.upstreams).toHaveLength(2);
  });

  it('fails as a whole when one source fails and another refused the input: one section is not the bundle', () => {
    const outcome = compose({
      cert: down('crt.sh', 'timeout'),
      expiry: { type: 'invalid_input', reason: { code: 'unsupported_tld', message: 'No RDAP for .de.' } },
    });
    expect(outcome).toEqual({ type: 'upstream_failed', upstreams: [{ name: 'crt.sh', error: 'timeout' }] });
  });

  it('fails as a whole, naming every upstream, when all three sources fail', () => {
    const outcome = compose({
      cert: down('crt.sh', 'http_status'),
      dns: down('doh', 'timeout'),
      expiry: down('rdap', 'timeout'),
    });
    expect(outcome).toEqual({
      type: 'upstream_failed',
      upstreams: [
        { name: 'crt.sh', error: 'http_status' },
        { name: 'doh', error: 'timeout' },
        { name: 'rdap', error: 'timeout' },
      ],
    });
  });

  it('sets lifetime_note.applies when the cert check saw fixed-day renewals', () => {
    const result = resultOf(
      compose({
        cert: ok(
          certResult([
            finding('cert.fixed_renewal_day', 'warning', 'Renewals happen 60 days after issuance.'),
          ]),
        ),
      }),
    );
    expect(result.lifetime_note.applies).toBe(true);
    expect(result.summary.status).toBe('warning');
  });

  it('cross-checks the CA seen in CT against CAA and reports a CA that is not permitted', () => {
    const result = resultOf(compose({ dns: ok(dnsResult([], 'digicert.com')) }));
    expect(result.findings.map((f) => f.code)).toEqual(['caa.issuer_not_permitted']);
    expect(result.summary.counts.warning + result.summary.counts.critical).toBe(1);
    expect(resultOf(compose()).findings).toEqual([]);
  });

  it('omits the stall verdict when the cert section failed', () => {
    const result = resultOf(compose({ cert: down('crt.sh', 'timeout') }));
    expect(result.renewal_stall).toBeNull();
    expect(result.lifetime_note.applies).toBe(false);
  });
});
