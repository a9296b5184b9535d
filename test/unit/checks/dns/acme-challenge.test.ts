/** `_acme-challenge.<domain>` between validations: nothing, stale TXT tokens, or a delegating CNAME. */
import { describe, expect, it } from 'vitest';
import { assessAcmeChallenge } from '../../../../src/checks/dns/acme-challenge.ts';

describe('assessAcmeChallenge', () => {
  it('nothing there (the normal state): null and no finding', () => {
    expect(assessAcmeChallenge('shop.example', { txt: [], cname: null })).toEqual({
      acmeChallenge: null,
      findings: [],
    });
  });

  it('TXT tokens alone: reported as stale leftovers that can mislead', () => {
    const found = { txt: ['token-a', 'token-b'], cname: null };
    const { acmeChallenge, findings } = assessAcmeChallenge('shop.example', found);
    expect(acmeChallenge).toEqual(found);
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'dns.acme_challenge_present',
        severity: 'info',
        evidence: 'token-a\ntoken-b',
      }),
    ]);
    expect(findings[0]?.message).toContain(
      '_acme-challenge.shop.example holds 2 TXT records left from a DNS-01 validation',
    );
    expect(findings[0]?.message).toContain('stale');
  });

  it('a CNAME: reported as delegated DNS-01 validation, naming the target', () => {
    const { findings } = assessAcmeChallenge('shop.example', { txt: [], cname: 'abc.auth.acme-dns.io' });
    expect(findings[0]?.message).toContain(
      'is a CNAME to abc.auth.acme-dns.io: DNS-01 validation is delegated',
    );
    expect(findings[0]?.message).not.toContain('stale');
    expect(findings[0]?.evidence).toBe('CNAME abc.auth.acme-dns.io');
  });

  it('a CNAME whose target holds a token: delegated, and the token is counted', () => {
    const { findings } = assessAcmeChallenge('shop.example', { txt: ['t'], cname: 'abc.auth.acme-dns.io' });
    expect(findings[0]?.message).toContain('delegated');
    expect(findings[0]?.message).toContain('it holds one TXT record now');
  });

  it('quotes at most 100 characters of each token', () => {
    const { findings } = assessAcmeChallenge('shop.example', { txt: ['x'.repeat(5_000)], cname: null });
    expect(findings[0]?.evidence).toHaveLength(100);
  });
});
