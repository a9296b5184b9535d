/**
 * Remote mode: createFacilitatorClient speaks the HTTP facilitator protocol to X402_FACILITATOR_URL
 * (a loopback fake) and sends X402_FACILITATOR_AUTH_HEADER on /supported, /verify and /settle.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { createFacilitatorClient } from '../../../src/payments/facilitator/facilitator.ts';
import { FAKE_TX_HASH, type FakeFacilitator, startFakeFacilitator } from '../../world/facilitator.ts';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  amount: '10000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
};

const payload: PaymentPayload = {
  x402Version: 2,
  accepted: requirements,
  payload: {
    signature: `0x${'11'.repeat(65)}`,
    authorization: {
      from: PAYER,
      to: PAY_TO,
      value: '10000',
      validAfter: '0',
      validBefore: '1900000000',
      nonce: `0x${'22'.repeat(32)}`,
    },
  },
};

let fake: FakeFacilitator;

beforeEach(async () => {
  fake = await startFakeFacilitator('eip155:8453');
});

afterEach(async () => {
  await fake.close();
});

function remoteConfig(extra: Record<string, string> = {}) {
  return loadConfig({ X402_FACILITATOR_URL: fake.url.href, X402_PAY_TO: PAY_TO, ...extra });
}

describe('createFacilitatorClient (remote mode)', () => {
  it('sends the configured auth header on supported, verify and settle', async () => {
    const client = createFacilitatorClient(
      remoteConfig({ X402_FACILITATOR_AUTH_HEADER: 'X-Api-Key: s3cret value' }),
    );

    expect((await client.getSupported()).kinds).toEqual([
      { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
    ]);
    expect(await client.verify(payload, requirements)).toMatchObject({ isValid: true, payer: PAYER });
    expect(await client.settle(payload, requirements)).toMatchObject({
      success: true,
      transaction: FAKE_TX_HASH,
    });

    expect(fake.requests.map((r) => [r.method, r.url.pathname, r.headers['x-api-key']])).toEqual([
      ['GET', '/supported', 's3cret value'],
      ['POST', '/verify', 's3cret value'],
      ['POST', '/settle', 's3cret value'],
    ]);
    expect(fake.calls[1]?.paymentPayload).toEqual(payload);
    expect(fake.calls[2]?.paymentRequirements).toEqual(requirements);
  });

  it('sends no auth header when none is configured', async () => {
    const client = createFacilitatorClient(remoteConfig());
    await client.verify(payload, requirements);
    expect(fake.requests).toHaveLength(1);
    expect(Object.keys(fake.requests[0]?.headers ?? {})).not.toContain('x-api-key');
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts an Authorization bearer line', () => {
    const mode = remoteConfig({ X402_FACILITATOR_AUTH_HEADER: 'Authorization: Bearer abc.def' }).x402.mode;
    expect(mode).toMatchObject({
      kind: 'remote',
      authHeader: { name: 'Authorization', value: 'Bearer abc.def' },
    });
  });

  it('rejects an auth header line that is not "Name: value"', () => {
    for (const line of ['no colon here', 'Bad Name: x', 'X-Key:   ']) {
      expect(() => remoteConfig({ X402_FACILITATOR_AUTH_HEADER: line }), line).toThrow(ConfigError);
    }
  });
});
