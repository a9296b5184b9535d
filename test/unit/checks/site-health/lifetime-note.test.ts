/** The 64-day note: every fact of the note as first published and the confirmed timeline, in each place it is published. */
import { describe, expect, it } from 'vitest';
import { lifetimeNote } from '../../../../src/checks/site-health/lifetime-note.ts';
import { lifetimeNoteSchema } from '../../../../src/checks/site-health/result.ts';
import { loadConfig } from '../../../../src/config.ts';
import { buildPricing } from '../../../../src/mcp/pricing.ts';
import { outputExampleFor } from '../../../../src/payments/server/output-examples.ts';
import { createDiscoveryApp } from '../../http/discovery/discovery-app.ts';

/** What the note must say, each as a pattern one fact matches (the five first published, then the confirmed ones). */
const REQUIRED: [string, RegExp][] = [
  [
    '64-day default from 2027-02-10',
    /64-day certificates by default for every issuance or renewal on or after 2027-02-10/,
  ],
  ['45 days from 2028-02-16', /lifetime becomes 45 days from 2028-02-16/],
  [
    'staging from 2026-10-14',
    /64-day certificates are available in the authority's staging environment from 2026-10-14/,
  ],
  [
    'two-thirds with ARI or a rule',
    /about two-thirds of the lifetime, using ACME ARI \(RFC 9773\) or a two-thirds rule/,
  ],
  ['hard-coded targets break', /day 60, 80 or 83 of a 90-day certificate will break/],
  [
    'classic 64-day, 10-day reuse',
    /`classic` profile .*64-day certificates with 10-day authorization reuse from 2027-02-10/,
  ],
  ['classic 45-day, 7-hour reuse', /45-day certificates with 7-hour authorization reuse from 2028-02-16/],
  ['tlsserver 45 days already', /`tlsserver` profile already issues 45-day certificates/],
  ['shortlived 160 hours', /`shortlived` profile 160-hour/],
  [
    'two-thirds, half under 10 days',
    /two-thirds of the lifetime has passed \(half of it for lifetimes under 10 days\)/,
  ],
  ['ARI at least twice a day', /ACME Renewal Information \(ARI\) at least twice a day/],
  ['CA/B Forum 100 and 47 days', /100 days on 2027-03-15 and to 47 days on 2029-03-15/],
];

function expectEveryFact(facts: readonly string[]): void {
  for (const [what, pattern] of REQUIRED) {
    expect(
      facts.some((fact) => pattern.test(fact)),
      what,
    ).toBe(true);
  }
}

describe('the 64-day note', () => {
  it('site-health: the note carries every fact and the dated fields, whether or not it applies', () => {
    for (const applies of [true, false]) {
      const note = lifetimeNoteSchema.parse(lifetimeNote(applies));
      expectEveryFact(note.facts);
      expect(note).toMatchObject({
        applies,
        default_64_day_from: '2027-02-10',
        default_45_day_from: '2028-02-16',
        staging_64_day_from: '2026-10-14',
        cabf_max_100_days_from: '2027-03-15',
        cabf_max_47_days_from: '2029-03-15',
      });
      expect(note.recommendation).toMatch(/half for lifetimes under 10 days.*ARI.*twice a day/);
    }
  });

  it('the pricing tool publishes the same facts (without the per-domain `applies`)', () => {
    const pricing = buildPricing(loadConfig({}));
    expectEveryFact(pricing.lifetime_note.facts);
    expect(pricing.lifetime_note).not.toHaveProperty('applies');
    expect(pricing.lifetime_note.cabf_max_47_days_from).toBe('2029-03-15');
  });

  it('discovery: /llms.txt lists every fact, and the site-health output example carries the note', async () => {
    const text = await (await createDiscoveryApp().request('/llms.txt')).text();
    const listed = text.split('\n').flatMap((line) => (line.startsWith('- ') ? [line.slice(2)] : []));
    expectEveryFact(listed);
    const example = outputExampleFor('v1_site_health') as { lifetime_note: { facts: string[] } };
    expectEveryFact(example.lifetime_note.facts);
  });
});
