import { describe, expect, it } from 'vitest';
import { assessDmarc, parseDmarc } from '../../../../src/checks/dns/dmarc.ts';
import { dmarcSchema } from '../../../../src/checks/dns/result.ts';

const at = (name: string, ...txt: string[]) => ({ name, txt });

describe('DMARC record location', () => {
  it('uses the record at _dmarc.<domain> and reads p, sp, pct, rua', () => {
    const record =
      'v=DMARC1; p=reject; sp=quarantine; pct=100; rua=mailto:dmarc-reports@healthy-shop.com,mailto:rua@dmarc.postmarkapp.com; adkim=s; aspf=s';
    const { dmarc, findings } = assessDmarc(at('_dmarc.healthy-shop.com', 'MS=ms90210', record), null);
    expect(dmarc).toEqual({
      record,
      policy: 'reject',
      subdomain_policy: 'quarantine',
      pct: 100,
      rua: ['mailto:dmarc-reports@healthy-shop.com', 'mailto:rua@dmarc.postmarkapp.com'],
      found_at: '_dmarc.healthy-shop.com',
    });
    expect(dmarcSchema.parse(dmarc)).toEqual(dmarc);
    expect(findings).toEqual([]);
  });

  it('falls back to the organizational domain, where sp applies to the subdomain', () => {
    const org = at('_dmarc.healthy-shop.com', 'v=DMARC1; p=reject; sp=none; rua=mailto:d@healthy-shop.com');
    const { dmarc, findings } = assessDmarc(at('_dmarc.blog.healthy-shop.com'), org);
    expect(dmarc).toMatchObject({
      found_at: '_dmarc.healthy-shop.com',
      policy: 'reject',
      subdomain_policy: 'none',
    });
    expect(findings.map((f) => f.code)).toEqual(['dmarc.policy_none']);
  });

  it('prefers the domain’s own record over the organizational one', () => {
    const own = at('_dmarc.mail.healthy-shop.com', 'v=DMARC1; p=quarantine');
    const org = at('_dmarc.healthy-shop.com', 'v=DMARC1; p=none');
    expect(assessDmarc(own, org).dmarc?.found_at).toBe('_dmarc.mail.healthy-shop.com');
  });

  it('reports dmarc.missing when neither name has a DMARC record', () => {
    const { dmarc, findings } = assessDmarc(
      at('_dmarc.www.dmarc-monitor.net', 'v=spf1 -all'),
      at('_dmarc.dmarc-monitor.net'),
    );
    expect(dmarc).toBeNull();
    expect(findings.map((f) => f.code)).toEqual(['dmarc.missing']);
  });
});

describe('DMARC policy and tags', () => {
  it('warns about p=none with the record as evidence', () => {
    const record = 'v=DMARC1; p=none; rua=mailto:dmarc_agg@vali.email; fo=1';
    const { dmarc, findings } = assessDmarc(at('_dmarc.dmarc-monitor.net', record), null);
    expect(dmarc).toMatchObject({ policy: 'none', subdomain_policy: 'none', pct: null });
    expect(findings).toEqual([
      expect.objectContaining({ code: 'dmarc.policy_none', severity: 'warning', evidence: record }),
    ]);
  });

  it('accepts the RFC 9989 tags np, psd and t, and flags test mode', () => {
    const record = 'v=DMARC1; p=reject; np=reject; psd=n; t=y; rua=mailto:dmarc@spf-chain.org';
    expect(parseDmarc(record).errors).toEqual([]);
    const { findings } = assessDmarc(at('_dmarc.spf-chain.org', record), null);
    expect(findings.map((f) => f.code)).toEqual(['dmarc.test_mode']);
  });

  it('ignores unknown tags (RFC 9989)', () => {
    expect(parseDmarc('v=DMARC1; p=quarantine; bimi=yes; x_vendor=1').errors).toEqual([]);
  });

  it.each([
    ['v=DMARC1; p=rejected', '"p=rejected" is not a valid value'],
    ['v=DMARC1; p=reject; pct=150', '"pct=150" is not a valid value'],
    ['v=DMARC1; p=reject; adkim=strict', '"adkim=strict" is not a valid value'],
    ['v=DMARC1; p=reject; rua=dmarc@healthy-shop.com', 'has an address that is not a mailto: or https: URI'],
    ['v=DMARC1; p=reject; p=none', 'tag "p" appears more than once'],
    ['p=reject; v=DMARC1', 'the record must start with v=DMARC1'],
    ['v=DMARC1; p=reject; sp quarantine', '"sp quarantine" is not a tag=value pair'],
    ['v=DMARC1; rua=mailto:d@healthy-shop.com', 'there is no p tag, so receivers apply p=none (RFC 9989)'],
  ])('finds the syntax error in %s', (record, error) => {
    expect(parseDmarc(record).errors.join(' | ')).toContain(error);
  });

  it('reports syntax errors as dmarc.syntax and an invalid p as a null policy', () => {
    const record = 'v=DMARC1; p=rejected; rua=mailto:dmarc@healthy-shop.com';
    const { dmarc, findings } = assessDmarc(at('_dmarc.healthy-shop.com', record), null);
    expect(dmarc?.policy).toBeNull();
    expect(findings).toEqual([expect.objectContaining({ code: 'dmarc.syntax', evidence: record })]);
  });

  it('reports a missing p as policy none, with both the syntax and the policy finding', () => {
    const { dmarc, findings } = assessDmarc(
      at('_dmarc.healthy-shop.com', 'v=DMARC1; rua=mailto:d@healthy-shop.com'),
      null,
    );
    expect(dmarc?.policy).toBe('none');
    expect(findings.map((f) => f.code)).toEqual(['dmarc.syntax', 'dmarc.policy_none']);
  });

  it('reports multiple DMARC records at one name', () => {
    const first = 'v=DMARC1; p=reject; rua=mailto:dmarc@healthy-shop.com';
    const second = 'v=DMARC1; p=none';
    const { findings } = assessDmarc(at('_dmarc.healthy-shop.com', first, second), null);
    expect(findings[0]).toMatchObject({
      code: 'dmarc.multiple_records',
      severity: 'critical',
      evidence: `${first}\n${second}`,
    });
  });
});
