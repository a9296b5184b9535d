/**
 * The served chain against the closed world (issue 35): real X.509 chains served by the loopback
 * site, Node's verdict on them, the CT fakes' histories. What is served decides when it is broken.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CertResult, certResultSchema } from '../../../../src/checks/cert/result.ts';
import { loadConfig } from '../../../../src/config.ts';
import { normalizeDomain } from '../../../../src/domain/normalize.ts';
import { createRunners } from '../../../../src/runners.ts';
import { nodeReach } from '../../../../src/sources/node-reach.ts';
import { startWorld, type World } from '../../../world/index.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterEach(() => world.reset());
afterAll(() => world?.close());

async function checkCert(domain: string, env: Record<string, string> = {}): Promise<CertResult> {
  const checked = normalizeDomain(domain);
  if (!checked.valid) throw new Error(`${domain} must be valid`);
  const runners = createRunners(loadConfig({ ...world.env, ...env }), {
    fetch: globalThis.fetch,
    now: () => new Date(),
    reach: nodeReach(world.site.caPem),
  });
  const outcome = await runners.cert(checked);
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return certResultSchema.parse(outcome.result);
}

const severities = (result: CertResult) =>
  Object.fromEntries(result.findings.map((f) => [f.code, f.severity]));

describe('a chain Node refuses is judged from its dates and names, not as probe.failed', () => {
  it('served expired leaf: cert.expired about that leaf, its undeployed renewal beside it', async () => {
    const result = await checkCert('served-expired.net');
    expect(result.live_probe).toMatchObject({ ok: false, error: 'tls_expired' });
    expect(result.judged).toMatchObject({ source: 'served', served_chain: 'refused', unjudged: [] });
    expect(result.certificate?.days_left).toBeLessThan(0);
    expect(result.newer_certificate?.days_left).toBeGreaterThan(80);
    expect(severities(result)).toMatchObject({
      'cert.expired': 'critical',
      'cert.renewed_not_deployed': 'warning',
    });
    expect(severities(result)).not.toHaveProperty('probe.failed');
  });

  it('expired intermediate: cert.chain_expired (critical), the leaf itself healthy', async () => {
    const result = await checkCert('expired-intermediate.org');
    expect(result.live_probe.error).toBe('tls_expired');
    expect(severities(result)).toEqual({ 'cert.chain_expired': 'critical' });
    expect(result.certificate?.days_left).toBeGreaterThan(70);
  });

  it('private CA, leaf 3 days left, intermediate ending in 2: untrusted and the expiry findings of the served chain', async () => {
    const result = await checkCert('private-ca.net');
    expect(result.live_probe.error).toBe('tls_untrusted');
    expect(result.judged).toMatchObject({ source: 'served', served_chain: 'refused' });
    expect(result.certificate?.days_left).toBe(2);
    expect(severities(result)).toMatchObject({
      'cert.untrusted': 'critical',
      'cert.expires_soon': 'critical',
      'cert.chain_expires_soon': 'critical',
    });
    expect(severities(result)).not.toHaveProperty('probe.failed');
  });

  it('wrong host: cert.name_mismatch (critical)', async () => {
    const result = await checkCert('parked-alias.com');
    expect(result.live_probe.error).toBe('tls_hostname_mismatch');
    expect(severities(result)).toMatchObject({ 'cert.name_mismatch': 'critical' });
    expect(severities(result)).not.toHaveProperty('probe.failed');
  });

  it('a failure that is not about the certificate stays probe.failed, and says what it could not judge', async () => {
    // Nothing listens on port 1: the connection is refused before any TLS.
    const result = await checkCert('five-days-left.com', { PROBE_PORT: '1' });
    expect(result.judged).toMatchObject({ source: 'ct_newest', served_chain: 'not_read' });
    expect(result.judged.unjudged).toEqual(
      expect.arrayContaining([
        'cert.expires_soon',
        'cert.lifetime_low',
        'cert.untrusted',
        'cert.renewed_not_deployed',
      ]),
    );
    expect(severities(result)).toMatchObject({ 'probe.failed': 'warning' });
  });
});

describe('what is served is what `certificate` describes', () => {
  it('5 days left with an undeployed renewal: expires_soon about the served certificate, the renewal beside it', async () => {
    const result = await checkCert('five-days-left.com');
    expect(result.live_probe.ok).toBe(true);
    expect(result.judged).toMatchObject({ source: 'served', served_chain: 'verified' });
    expect(result.certificate?.days_left).toBeLessThanOrEqual(5);
    expect(result.newer_certificate?.days_left).toBeGreaterThan(80);
    expect(severities(result)).toMatchObject({
      'cert.expires_soon': 'critical',
      'cert.renewed_not_deployed': 'warning',
    });
    expect(result.findings.find((f) => f.code === 'cert.expires_soon')?.message).toMatch(
      /serves expires in \d days/,
    );
  });

  it('CT lag: the fresh served leaf is judged from itself, no critical about the older one', async () => {
    const result = await checkCert('ct-lag.org');
    expect(result.judged).toMatchObject({
      source: 'served',
      reason: expect.stringMatching(/CT does not show/),
    });
    expect(result.certificate?.days_left).toBeGreaterThan(85);
    expect(result.renewal.stall.status).toBe('ok');
    expect(result.findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });

  it('wildcard: the served wildcard leaf covers the name', async () => {
    const result = await checkCert('www.wildcard-served.com');
    expect(result.judged).toMatchObject({ source: 'served', served_chain: 'verified' });
    expect(result.certificate).toMatchObject({ wildcard: true });
    expect(result.findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });
});

describe('a verdict does not depend on which CT source answered', () => {
  it('398-day certificate, 57 days left, yearly history: ok from crt.sh and from Cert Spotter', async () => {
    const full = await checkCert('yearly-renewals.com');
    expect(full.ct_source).toBe('crt.sh');
    world.crtsh.mode = 'db_error';
    const unexpiredOnly = await checkCert('yearly-renewals.com');
    expect(unexpiredOnly.ct_source).toBe('certspotter');
    expect(unexpiredOnly.renewal.issuances_seen).toBeLessThan(full.renewal.issuances_seen);
    for (const result of [full, unexpiredOnly]) {
      expect(result.renewal.stall.status).toBe('ok');
      expect(result.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    }
    expect(unexpiredOnly.judged.unjudged).toContain('cert.fixed_renewal_day');
  });

  it('398-day certificate, 57 days left, no history: not stalled before its usual renewal point', async () => {
    const result = await checkCert('single-yearly.net');
    expect(result.renewal.stall).toMatchObject({
      status: 'ok',
      reason: expect.stringMatching(/30 days before expiry/),
    });
    expect(severities(result)).not.toHaveProperty('cert.renewal_stalled');
  });
});
