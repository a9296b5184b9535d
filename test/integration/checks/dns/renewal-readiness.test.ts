/** Renewal readiness through the dns runner over the loopback resolvers: the world's scenarios, the time bound. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dnsResultSchema } from '../../../../src/checks/dns/result.ts';
import { createDnsRunner } from '../../../../src/checks/dns/run.ts';
import { toTimestamp } from '../../../../src/checks/result-common.ts';
import { EXPIRED_PERSIST_UNTIL } from '../../../world/scenarios/leftover-token.com.ts';
import { ACME_DNS_TARGET, LE_PERSIST_UNTIL } from '../../../world/scenarios/persist-renewals.org.ts';
import { type DnsWorld, startDnsWorld, validDomain } from '../../sources/doh/world.ts';

let world: DnsWorld;
beforeAll(async () => {
  world = await startDnsWorld();
});
afterAll(() => world.close());
afterEach(() => {
  world.primary.delayMs = 0;
  world.fallback.delayMs = 0;
});

/** The scenarios' persistUntil values are relative to the world's start, so the check runs on the real clock. */
const run = (domain: string) =>
  createDnsRunner({ doh: world.client(), now: () => new Date() })(validDomain(domain));
const resultOf = async (domain: string) => {
  const outcome = await run(domain);
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return dnsResultSchema.parse(outcome.result);
};
const iso = (seconds: number) => toTimestamp(new Date(seconds * 1000));

describe('dns runner: renewal readiness', () => {
  it('persist-renewals.org: delegated DNS-01, two DNS-PERSIST-01 authorizations, the Let’s Encrypt one expiring', async () => {
    const result = await resultOf('persist-renewals.org');
    expect(result.acme_challenge).toEqual({
      cname: ACME_DNS_TARGET,
      txt: ['gYx1nZ3bRk9_Jw2LqV8cT4sHf6mP0aE5uDiO7yKzXhQ'],
    });
    expect(result.validation_persist).toEqual([
      {
        issuer: 'letsencrypt.org',
        account_uri: 'https://acme-v02.api.letsencrypt.org/acme/acct/2187654321',
        policy: null,
        persist_until: iso(LE_PERSIST_UNTIL),
      },
      {
        issuer: 'pki.goog',
        account_uri: 'https://dv.acme-v02.api.pki.goog/account/Ab3dEf9',
        policy: 'wildcard',
        persist_until: null,
      },
    ]);
    const readiness = result.findings.filter((f) => f.code !== 'dnssec.unsigned');
    expect(readiness.map((f) => `${f.code}:${f.severity}`)).toEqual([
      'dns.acme_challenge_present:info',
      'dns.validation_persist_expiring:warning',
    ]);
    expect(readiness[0]?.message).toContain(`CNAME to ${ACME_DNS_TARGET}: DNS-01 validation is delegated`);
    expect(readiness[1]?.message).toMatch(/expires on \d{4}-\d{2}-\d{2} \(persistUntil\), in 12 days/);
  });

  it('leftover-token.com: stale tokens, an expired record and a quoted one', async () => {
    const result = await resultOf('leftover-token.com');
    expect(result.acme_challenge).toEqual({
      cname: null,
      txt: ['LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0', 'qS1QnMf8GS5jN5tMq4vT_yKq3pP0t8c1uBvX2wYhZkE'],
    });
    expect(result.validation_persist).toEqual([
      expect.objectContaining({ issuer: 'letsencrypt.org', persist_until: iso(EXPIRED_PERSIST_UNTIL) }),
    ]);
    const byCode = Object.fromEntries(result.findings.map((f) => [f.code, f]));
    expect(byCode['dns.acme_challenge_present']?.message).toContain(
      'holds 2 TXT records left from a DNS-01 validation',
    );
    expect(byCode['dns.validation_persist_expiring']?.message).toContain('expired on');
    expect(byCode['dns.validation_persist_malformed']?.message).toContain('literal quote characters');
  });

  it('a domain with neither: null and an empty list, no renewal-readiness finding', async () => {
    const result = await resultOf('healthy-shop.com');
    expect(result.acme_challenge).toBeNull();
    expect(result.validation_persist).toEqual([]);
    expect(result.findings).toEqual([]);
  });

  it('asks both names beside the other lookups, in the first round: no added latency', async () => {
    const before = world.primary.queries.length;
    // Both resolvers slow, so the primary (asked 300 ms before the hedged fallback) answers every question.
    world.primary.delayMs = 600;
    world.fallback.delayMs = 600;
    const started = performance.now();
    const result = await resultOf('persist-renewals.org');
    const ms = performance.now() - started;
    const asked = world.primary.queries.slice(before).map((q) => `${q.name} ${q.type}`);
    expect(asked).toEqual(
      expect.arrayContaining([
        '_acme-challenge.persist-renewals.org TXT',
        '_validation-persist.persist-renewals.org TXT',
      ]),
    );
    expect(result.validation_persist).toHaveLength(2);
    // Every question of this domain (no SPF include to follow) is one round of 600 ms; a second
    // round for the new names would take at least 1,200 ms.
    expect(ms).toBeGreaterThanOrEqual(595);
    expect(ms).toBeLessThan(1_150);
  });
});
