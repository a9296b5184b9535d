/**
 * A webhook's name judged before payment, on a hand-written resolver: no address, or only addresses
 * the delivery policy refuses, is a 400 with the reason; a resolver in trouble is an upstream failure.
 */
import { describe, expect, it } from 'vitest';
import type { SourceResult } from '../../../src/sources/failure.ts';
import { webhookReach } from '../../../src/watches/webhook-reach.ts';

const answers: Record<string, SourceResult<string[]>> = {
  'hooks.example.com': { ok: true, value: ['93.184.216.34'] },
  'mixed.example.com': { ok: true, value: ['10.0.0.5', '93.184.216.34'] },
  'nothing.example.com': { ok: true, value: [] },
  'private.example.com': { ok: true, value: ['10.0.0.5'] },
  'loop.example.com': { ok: true, value: ['127.0.0.1', '::1'] },
  'meta.example.com': { ok: true, value: ['169.254.169.254'] },
  'broken.example.com': { ok: false, failure: { code: 'servfail', source: 'doh', detail: 'SERVFAIL' } },
  'slow.example.com': { ok: false, failure: { code: 'timeout', source: 'doh', detail: 'no answer' } },
};
const reach = (allowPrivate: boolean) =>
  webhookReach(async (name) => answers[name] ?? { ok: true, value: [] }, allowPrivate);

describe('webhookReach', () => {
  it('admits a name with a public address', async () => {
    expect(await reach(false)('https://hooks.example.com/h')).toBeNull();
    expect(await reach(false)('https://mixed.example.com/h')).toBeNull();
  });

  it.each([
    ['https://nothing.example.com/h', /has no address/],
    [
      'https://private.example.com/h',
      /resolves only to addresses deliveries refuse \(10\.0\.0\.5: 10\.0\.0\.0\/8/,
    ],
    ['https://loop.example.com/h', /127\.0\.0\.1: 127\.0\.0\.0\/8/],
    ['https://broken.example.com/h', /cannot be resolved \(servfail\)/],
  ])('refuses %s with 400 invalid_webhook_url and the reason', async (url, message) => {
    expect(await reach(false)(url)).toMatchObject({
      type: 'invalid_input',
      reason: { code: 'invalid_webhook_url', message: expect.stringMatching(message) },
    });
  });

  it('refuses the metadata address even where test receivers on loopback are admitted', async () => {
    expect(await reach(true)('http://loop.example.com:8080/h')).toBeNull();
    expect(await reach(true)('https://meta.example.com/h')).toMatchObject({ type: 'invalid_input' });
  });

  it('answers an upstream failure when the resolvers cannot say', async () => {
    expect(await reach(false)('https://slow.example.com/h')).toEqual({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'timeout', detail: 'no answer' }],
    });
  });
});
